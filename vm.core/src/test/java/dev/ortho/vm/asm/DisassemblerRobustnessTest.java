package dev.ortho.vm.asm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.bytecode.ModuleDef.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The disassembler reads unverified modules: corrupted bytecode and descriptors produce a
 * {@link StatusException} naming the function and offset, never an unchecked exception or a hang.
 */
class DisassemblerRobustnessTest {
    private static final String SOURCE = """
            vm.module @m
            vm.type !vm.buffer
            vm.import @other.f cconv "0CiDi_i"
            vm.rodata[0] = 00112233
            vm.export @f
            vm.func @f(%i0: i32, %r0: !vm.ref<?>) -> (i32) {
            ^bb0:
              %i1 = vm.const.i32 7
              %i2:3 = vm.const.i64 9
              %i4 = vm.call.variadic @other.f segments[2](%i0, %i1)
              %r1 = vm.const.ref.rodata 0
              %i5 = vm.buffer.load.i32 %r1, %i2:3
              vm.br_table %i0 { default: ^bb1(%i1->%i0), 0: ^bb2(), 1: ^bb1() }
            ^bb1:
              %r2 = vm.select.ref %i0 ? %R0 : %r1 -> !vm.buffer
              vm.fail %i0, "message"
            ^bb2:
              %i6 = vm.const.f32 2.5
              vm.return %i5
            }
            """;

    @Test
    void corruptedBytecodeFailsWithStatusExceptions() {
        // One generous hang guard around all mutations (not a timing assertion).
        assertTimeoutPreemptively(Duration.ofSeconds(120), DisassemblerRobustnessTest::mutate);
    }

    private static void mutate() {
        ModuleDef def = AsmTesting.assemble(SOURCE);
        byte[] code = def.bytecode().toArray(ValueLayout.JAVA_BYTE);
        Random random = new Random(0x5eed);
        int failures = 0;
        for (int i = 0; i < 5000; i++) {
            byte[] mutated = code.clone();
            int flips = 1 + random.nextInt(4);
            for (int k = 0; k < flips; k++) {
                mutated[random.nextInt(mutated.length)] = (byte) random.nextInt(256);
            }
            FunctionDescriptor d = def.functions().get(0);
            if (random.nextInt(4) == 0) {
                d = new FunctionDescriptor(d.bytecodeOffset(), random.nextInt(d.bytecodeLength() + 1),
                        0, (short) 0, d.blockCount(), d.i32RegisterCount(), d.refRegisterCount());
            }
            ModuleDef bad = with(def, MemorySegment.ofArray(mutated), d);
            try {
                AsmTesting.DISASSEMBLER.disassemble(bad);
            } catch (StatusException e) {
                failures++;
                assertTrue(e.getMessage().contains(" at m.f+"), e.getMessage());
            }
        }
        assertTrue(failures > 100, "mutations are detected: " + failures);
    }

    @Test
    void truncatedInstructionNamesFunctionAndOffset() {
        ModuleDef def = AsmTesting.assemble(SOURCE);
        FunctionDescriptor d = def.functions().get(0);
        ModuleDef cut = with(def, def.bytecode(), new FunctionDescriptor(0, 4, 0, (short) 0, (short) 1, (short) 8, (short) 4));
        StatusException e = assertThrows(StatusException.class, () -> AsmTesting.DISASSEMBLER.disassemble(cut));
        assertEquals(StatusCode.OUT_OF_RANGE, e.code());
        assertEquals("instruction runs past the end of the function (4 bytes) at m.f+00000001", e.getMessage());
        ModuleDef outside = with(def, def.bytecode(), new FunctionDescriptor(8, d.bytecodeLength() + 64, 0,
                (short) 0, (short) 1, (short) 8, (short) 4));
        assertEquals(StatusCode.OUT_OF_RANGE,
                assertThrows(StatusException.class, () -> AsmTesting.DISASSEMBLER.disassemble(outside)).code());
    }

    @Test
    void unknownOpcodeIsUnimplemented() {
        ModuleDef def = AsmTesting.assemble(SOURCE);
        byte[] code = def.bytecode().toArray(ValueLayout.JAVA_BYTE);
        code[1] = (byte) 0xD0;
        StatusException e = assertThrows(StatusException.class,
                () -> AsmTesting.DISASSEMBLER.disassemble(with(def, MemorySegment.ofArray(code), def.functions().get(0))));
        assertEquals(StatusCode.UNIMPLEMENTED, e.code());
        assertEquals("unknown opcode 0xD0 at m.f+00000001", e.getMessage());
        Disassembler coreOnly = new Disassembler(List.of());
        StatusException f32 = assertThrows(StatusException.class, () -> coreOnly.disassemble(def));
        assertEquals(StatusCode.UNIMPLEMENTED, f32.code());
    }

    private static ModuleDef with(ModuleDef def, MemorySegment bytecode, FunctionDescriptor d) {
        List<FunctionDescriptor> functions = new ArrayList<>(def.functions());
        functions.set(0, d);
        return new ModuleDef(def.name(), def.version(), def.requirements(), def.attrs(), def.types(),
                def.dependencies(), def.imports(), def.exports(), def.signatures(), def.rodata(), def.rwdata(),
                def.state(), functions, def.bytecodeVersion(), bytecode, def.debug());
    }
}
