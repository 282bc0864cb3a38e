package dev.ortho.vm.asm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.vm.bytecode.FeatureBits;
import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.bytecode.ModuleDef.FunctionDescriptor;
import dev.ortho.vm.bytecode.ModuleDef.ImportDef;
import dev.ortho.vm.bytecode.ModuleDef.RodataDef;
import dev.ortho.vm.bytecode.ModuleDef.SignatureDef;
import dev.ortho.vm.internal.isa.CoreOps;
import dev.ortho.vm.spi.InstructionExtension;
import dev.ortho.vm.spi.OpDescriptor;
import dev.ortho.vm.spi.OperandSpec;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every core, ExtF32 and ExtF64 instruction, encoded field by field from its descriptor (64-bit
 * registers as aligned pairs, move bits wherever the ISA allows them and IREE's text can carry
 * them, branch remaps, variadic lists, a two-case branch table), in a module IREE's verifier
 * accepts, disassembles to text that assembles back to the same bytes.
 */
class EveryOpRoundTripTest {

    @TestFactory
    Stream<DynamicTest> everyInstructionRoundTrips() {
        List<DynamicTest> tests = new ArrayList<>();
        for (OpDescriptor d : CoreOps.DESCRIPTORS) {
            tests.add(test(-1, d));
        }
        for (InstructionExtension ext : AsmTesting.EXTENSIONS) {
            for (OpDescriptor d : ext.ops()) {
                tests.add(test(ext.prefix(), d));
            }
        }
        assertEquals(136 + 63 + 65, tests.size()); // ExtF32/ExtF64 include vm.fpowi (after the 17.0 snapshot)
        return tests.stream();
    }

    private static DynamicTest test(int prefix, OpDescriptor d) {
        return DynamicTest.dynamicTest(d.mnemonic(), () -> {
            byte[] code = encode(prefix, d);
            ModuleDef def = module(code, prefix < 0 ? 0
                    : prefix == CoreOps.PREFIX_EXT_F32 ? FeatureBits.EXT_F32 : FeatureBits.EXT_F64);
            String text = AsmTesting.DISASSEMBLER.disassemble(def);
            assertTrue(text.contains("vm." + d.mnemonic()), text);
            ModuleDef again = AsmTesting.assemble(text);
            FunctionDescriptor f = again.functions().get(0);
            byte[] reassembled = again.bytecode().asSlice(f.bytecodeOffset(), f.bytecodeLength())
                    .toArray(ValueLayout.JAVA_BYTE);
            assertEquals(hex(code), hex(reassembled), text);
        });
    }

    static final java.util.Set<String> TERMINATORS = java.util.Set.of("Return", "Fail", "Branch", "CondBranch",
            "BranchTable", "Yield", "CallYieldable", "CallVariadicYieldable", "Break", "CondBreak");

    static ModuleDef module(byte[] code, int requirements) {
        byte[] padded = new byte[(code.length + 7) & ~7];
        System.arraycopy(code, 0, padded, 0, code.length);
        return new ModuleDef("m", 0, requirements, List.of(), List.of("!vm.buffer"), List.of(),
                List.of(new ImportDef("other.f", new SignatureDef("0i_i", List.of()), ImportDef.REQUIRED)),
                List.of(), List.of(new SignatureDef("0v_v", List.of())),
                List.of(new RodataDef(MemorySegment.ofArray(new byte[] {1, 2, 3}), false)), List.of(),
                new ModuleDef.ModuleStateDef(64, 4),
                List.of(new FunctionDescriptor(0, code.length, requirements, (short) 0, (short) 1, (short) 16, (short) 4)),
                17 << 16, MemorySegment.ofArray(padded), null);
    }

    static byte[] encode(int prefix, OpDescriptor d) {
        Out out = new Out();
        out.u8(CoreOps.BLOCK);
        if (prefix >= 0) {
            out.u8(prefix);
        }
        out.u8(d.opcode());
        int tableSize = 0;
        for (OperandSpec f : d.operands()) {
            switch (f.kind()) {
                // IREE's text form of vm.const.ref.zero has no move bit.
                case REGISTER -> out.u16(register(f.type(), f.moveAllowed() && !d.symbol().equals("ConstRefZero")));
                case CONST_I16 -> {
                    tableSize = 2;
                    out.u16(tableSize);
                }
                case ATTRIBUTE -> {
                    switch (f.type()) {
                        case "i32" -> out.u32(0x12345678);
                        case "i64" -> out.u64(-5L);
                        case "f32" -> out.u32(Float.floatToRawIntBits(-1.25f));
                        default -> out.u64(Double.doubleToRawLongBits(0.1));
                    }
                }
                case RODATA_ATTR -> out.u32(0);
                case FUNC_ATTR -> out.u32(0x80000000);
                case GLOBAL_ATTR -> out.u32(d.symbol().endsWith("Ref") ? 2 : 8);
                case STRING_ATTR -> {
                    out.u16(3);
                    out.raw(new byte[] {'m', 's', 'g'});
                }
                case TYPE_OF -> out.u32(0);
                case BRANCH_TARGET -> out.u32(0);
                case BRANCH_OPERANDS -> remaps(out);
                case BRANCH_TABLE_CASES -> {
                    for (int i = 0; i < tableSize; i++) {
                        out.u32(0);
                        remaps(out);
                    }
                }
                case VARIADIC_OPERANDS -> {
                    out.align2();
                    if (f.name().equals("segment_sizes")) {
                        out.u16(2);
                        out.u16(1);
                        out.u16(1);
                    } else {
                        out.u16(2);
                        out.u16(register("any".equals(f.type()) ? "i32" : f.type(), true));
                        out.u16(register("any".equals(f.type()) ? "ref" : f.type(), true));
                    }
                }
                case VARIADIC_RESULTS -> {
                    out.align2();
                    out.u16(1);
                    out.u16(3);
                }
            }
        }
        if (!TERMINATORS.contains(d.symbol())) {
            // Terminate the function so the text is a complete module.
            out.u8(CoreOps.RETURN);
            out.align2();
            out.u16(0);
        }
        return out.toByteArray();
    }

    private static int register(String type, boolean moveAllowed) {
        return switch (type) {
            case "i64", "f64" -> 4;
            case "ref" -> 0x8000 | (moveAllowed ? 0x4000 : 0) | 1;
            default -> 3;
        };
    }

    private static void remaps(Out out) {
        out.align2();
        out.u16(1);
        out.u16(2);
        out.u16(0x8000 | 0x4000 | 2);
    }

    private static String hex(byte[] bytes) {
        StringBuilder b = new StringBuilder();
        for (byte x : bytes) {
            b.append(String.format("%02X ", x & 0xFF));
        }
        return b.toString().trim();
    }

    /** Little-endian output with the 2-byte list alignment of the ISA. */
    private static final class Out extends ByteArrayOutputStream {
        void u8(int v) {
            write(v);
        }

        void u16(int v) {
            write(v);
            write(v >>> 8);
        }

        void u32(int v) {
            u16(v);
            u16(v >>> 16);
        }

        void u64(long v) {
            u32((int) v);
            u32((int) (v >>> 32));
        }

        void raw(byte[] b) {
            write(b, 0, b.length);
        }

        void align2() {
            if ((size() & 1) != 0) {
                write(0);
            }
        }
    }
}
