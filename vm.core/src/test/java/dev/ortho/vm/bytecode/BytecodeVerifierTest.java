package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.Instance;
import dev.ortho.vm.spi.InstructionExtension;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bytecode verifier's rejections, each with IREE's status code and a located message. */
class BytecodeVerifierTest {
    static ModuleDef def(String hex, int i32, int ref, String cconv, int requirements) {
        int length = hex.length() / 2;
        return ModuleDefs.fromSpec(String.join("\n",
                "name t",
                "type i32",
                "type !vm.buffer",
                "requirements " + requirements,
                "import 0 other.fn 0i_i",
                "function 0 " + length + " 0 1 " + i32 + " " + ref + " " + cconv,
                "export f 0",
                "rodata 00",
                "state 8 1",
                "bytecode " + hex));
    }

    static StatusException reject(String hex, int i32, int ref, String cconv) {
        return reject(def(hex, i32, ref, cconv, 0), VmasmFixture.EXTENSIONS);
    }

    static StatusException reject(ModuleDef def, List<InstructionExtension> extensions) {
        return assertThrows(StatusException.class, () -> BytecodeModule.create(new Instance(), def, extensions));
    }

    static void accept(String hex, int i32, int ref, String cconv) {
        BytecodeModule.create(new Instance(), def(hex, i32, ref, cconv, 0), VmasmFixture.EXTENSIONS);
    }

    static void assertRejected(StatusException e, StatusCode code, String fragment, String at) {
        assertEquals(code, e.code(), e.getMessage());
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
        assertTrue(e.getMessage().contains(at), e.getMessage());
    }

    @Test
    void wellFormedFunctionIsAccepted() {
        // block; const.i32.zero %i0; return (%i0)
        accept("790C00005A000100" + "0000", 1, 1, "0v_i");
    }

    @Test
    void instructionOutsideABlock() {
        assertRejected(reject("5A00000000", 1, 1, "0v_v"), StatusCode.INVALID_ARGUMENT, "is not in a block",
                "at t.f+00000000");
    }

    @Test
    void blockInsideABlock() {
        assertRejected(reject("79795A0000", 1, 1, "0v_v"), StatusCode.INVALID_ARGUMENT, "while still in a block",
                "at t.f+00000001");
    }

    @Test
    void missingTerminator() {
        assertRejected(reject("790C000000", 1, 1, "0v_v"), StatusCode.INVALID_ARGUMENT, "missing terminator",
                "at t.f");
    }

    @Test
    void registerOrdinalsOutsideTheRoundedCount() {
        // 3 declared i32 registers round up to 4: %i3 is fine, %i4 is not.
        accept("790C03005A00000000", 3, 1, "0v_v");
        assertRejected(reject("790C04005A00000000", 3, 1, "0v_v"), StatusCode.OUT_OF_RANGE,
                "i32 register ordinal 4 out of range 4", "at t.f+00000001");
    }

    @Test
    void unalignedI64Pair() {
        assertRejected(reject("790E01005A00000000", 4, 1, "0v_v"), StatusCode.INVALID_ARGUMENT,
                "not 8-byte aligned", "at t.f+00000001");
    }

    @Test
    void refBankAndMoveBit() {
        assertRejected(reject("7910000000005A000000", 2, 2, "0v_v"), StatusCode.INVALID_ARGUMENT,
                "ref register required but non-ref 0", "at t.f+00000001");
        // cmp.nz.ref %R0 -> %i0: the op does not take the move bit.
        assertRejected(reject("7955 00C0 0000 5A000000".replace(" ", ""), 2, 2, "0v_v"),
                StatusCode.INVALID_ARGUMENT, "MOVE bit", "at t.f+00000001");
        // const.ref.zero %r0 with an i32 bank ordinal of the ref bank size
        assertRejected(reject("79100480" + "5A000000", 2, 2, "0v_v"), StatusCode.OUT_OF_RANGE,
                "ref register ordinal 4 out of range 2", "at t.f+00000001");
    }

    @Test
    void branchTargetsMustBeBlockMarkers() {
        // block; br 0x00000002 (not a block) with an empty remap list
        assertRejected(reject("795602000000" + "0000", 1, 1, "0v_v"), StatusCode.INVALID_ARGUMENT,
                "branch target 00000002 is not a block marker", "at t.f");
        assertRejected(reject("7956FF000000" + "0000", 1, 1, "0v_v"), StatusCode.OUT_OF_RANGE,
                "outside the function", "at t.f+00000001");
    }

    @Test
    void unknownOpcode() {
        assertRejected(reject("79A0000000", 1, 1, "0v_v"), StatusCode.INVALID_ARGUMENT,
                "unhandled core opcode A0", "at t.f+00000001");
    }

    @Test
    void truncatedInstruction() {
        assertRejected(reject("790D0100", 1, 1, "0v_v"), StatusCode.OUT_OF_RANGE, "overrun", "at t.f+00000001");
    }

    @Test
    void extensionOpsNeedTheFeatureAndTheExtension() {
        // block; const.f32.zero %i0 (E0 04); return
        String hex = "79E004" + "0000" + "5A000000";
        assertRejected(reject(def(hex, 1, 1, "0v_v", 0), VmasmFixture.EXTENSIONS), StatusCode.INVALID_ARGUMENT,
                "requires feature [EXT_F32]", "at t.f+00000001");
        BytecodeModule.create(new Instance(), def(hex, 1, 1, "0v_v", FeatureBits.EXT_F32), VmasmFixture.EXTENSIONS);
        StatusException e = reject(def(hex, 1, 1, "0v_v", FeatureBits.EXT_F32), List.of());
        assertEquals(StatusCode.UNIMPLEMENTED, e.code(), e.getMessage());
        assertTrue(e.getMessage().contains("EXT_F32"), e.getMessage());
    }

    @Test
    void ordinalsOfCalleesGlobalsRodataAndTypes() {
        // call internal ordinal 7 (there is 1 function)
        assertRejected(reject("795807000000" + "00000000" + "0000" + "5A000000", 1, 1, "0v_v"),
                StatusCode.INVALID_ARGUMENT, "function ordinal 7 out of range 1", "at t.f+00000001");
        // call import ordinal 3 (there is 1 import)
        assertRejected(reject("795803000080" + "00000000" + "0000" + "5A000000", 1, 1, "0v_v"),
                StatusCode.INVALID_ARGUMENT, "import ordinal 3 out of range 1", "at t.f+00000001");
        // global.load.i32 .rwdata[8] (8 bytes of globals)
        assertRejected(reject("790008000000" + "0000" + "5A000000", 1, 1, "0v_v"), StatusCode.OUT_OF_RANGE,
                "global byte_offset out of range: 8 (rwdata=8)", "at t.f+00000001");
        // const.ref.rodata 1 (one segment)
        assertRejected(reject("791101000000" + "0080" + "5A000000", 1, 1, "0v_v"), StatusCode.OUT_OF_RANGE,
                "rodata ref ordinal out of range: 1", "at t.f+00000001");
        // global.load.ref .refs[0] with type 9
        assertRejected(reject("790800000000" + "09000000" + "0080" + "5A0000", 1, 1, "0v_v"),
                StatusCode.OUT_OF_RANGE, "type id ordinal out of range: 9", "at t.f+00000001");
    }

    @Test
    void callRegisterListsMustMatchTheCalleeCconv() {
        // call import other.fn (0i_i) with no arguments
        assertRejected(reject("795800000080" + "0000" + "0000" + "5A000000", 1, 1, "0v_v"),
                StatusCode.OUT_OF_RANGE, "register list underflow", "at t.f+00000001");
        // return with an empty list from a 0v_i function
        assertRejected(reject("795A0000" + "0000", 1, 1, "0v_i"), StatusCode.OUT_OF_RANGE,
                "register list underflow", "at t.f+00000001");
    }

    @Test
    void argumentsMustFitTheRegisters() {
        StatusException e = reject("795A00000000", 1, 1, "0iiI_v");
        assertRejected(e, StatusCode.INVALID_ARGUMENT, "insufficient register storage", "at t.f");
    }

    @Test
    void unnamedFunctionsAreLocatedByOrdinal() {
        ModuleDef def = ModuleDefs.fromSpec(String.join("\n", "name t", "function 0 5 0 1 1 1 0v_v",
                "bytecode 5A00000000"));
        assertRejected(reject(def, List.of()), StatusCode.INVALID_ARGUMENT, "is not in a block", "at t@0+00000000");
    }

    @Test
    void absentAttributeKeysAndValuesLoadAsEmpty() {
        ModuleDef plain = def("795A0000", 1, 1, "0v_v", 0);
        ModuleDef def = new ModuleDef(plain.name(), plain.version(), plain.requirements(),
                List.of(new ModuleDef.AttrDef(null, null)), plain.types(), plain.dependencies(), plain.imports(),
                plain.exports(), List.of(new ModuleDef.SignatureDef("0v_v", List.of(new ModuleDef.AttrDef("k", null)))),
                plain.rodata(), plain.rwdata(), plain.state(), plain.functions(), plain.bytecodeVersion(),
                plain.bytecode(), new ModuleDef.DebugDatabaseDef(List.of(), List.of(new ModuleDef.SourceMapDef(null,
                List.of()))));
        BytecodeModule module = BytecodeModule.create(new Instance(), def, List.of());
        assertEquals("", module.attrs().get(""));
        assertEquals("", module.exports().get(0).attr("k"));
        assertEquals(null, module.sourceLocation(module.internalFunction(0), 0));
    }
}
