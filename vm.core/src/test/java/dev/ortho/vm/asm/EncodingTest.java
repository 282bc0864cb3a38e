package dev.ortho.vm.asm;

import static dev.ortho.vm.asm.AsmTesting.assemble;
import static dev.ortho.vm.asm.AsmTesting.hex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.ortho.vm.bytecode.FeatureBits;
import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.bytecode.ModuleDef.FunctionDescriptor;
import dev.ortho.vm.bytecode.ModuleDef.ImportDef;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Byte-exact encodings of the corners of IREE's bytecode 17.0 as IREE's assembler emits them:
 * block markers, 64-bit pairs, ref move bits, 2-byte aligned register lists, branch remaps and
 * label fixups, branch tables, variadic and yieldable calls, globals, types, constants.
 */
class EncodingTest {

    @Test
    void emptyFunctionIsABlockMarkerAndReturnPaddedToEightBytes() {
        ModuleDef def = assemble("""
                vm.module @m version 3
                vm.func @f() -> () {
                ^bb0:
                  vm.return
                }
                """);
        assertEquals("79 5A 00 00", hex(def, 0));
        assertEquals(8, def.bytecode().byteSize());
        assertEquals(3, def.version());
        assertEquals(new FunctionDescriptor(0, 4, 0, (short) 0, (short) 1, (short) 0, (short) 0), def.functions().get(0));
        assertEquals("0v_v", def.signatures().get(0).callingConvention());
        assertEquals(17 << 16, def.bytecodeVersion());
        assertNull(def.state());
        assertEquals(List.of(), def.types());
    }

    @Test
    void registerOperandsAreUnalignedU16sAndListsAreTwoByteAligned() {
        ModuleDef def = assemble("""
                vm.module @m
                vm.func @add(%i0: i32, %i1: i32) -> (i32) {
                  %i2 = vm.add.i32 %i0, %i1
                  vm.return %i2
                }
                vm.func @zero() -> (i32) {
                  %i1 = vm.const.i32.zero
                  vm.return %i1
                }
                """);
        assertEquals("79 22 00 00 01 00 02 00 5A 00 01 00 02 00", hex(def, 0));
        assertEquals("0ii_i", def.signatures().get(0).callingConvention());
        assertEquals(3, def.functions().get(0).i32RegisterCount());
        assertEquals(16, def.functions().get(1).bytecodeOffset(), "functions start 8-byte aligned");
        assertEquals("79 0C 01 00 5A 00 01 00 01 00", hex(def, 1));
    }

    @Test
    void sixtyFourBitValuesNameTheLowRegisterOfAPair() {
        ModuleDef def = assemble("""
                vm.module @m
                vm.func @f(%i0:1: i64, %i2:3: i64) -> (i64) {
                  %i4:5 = vm.add.i64 %i0:1, %i2:3
                  %i6:7 = vm.const.i64 -2
                  vm.return %i4:5
                }
                """);
        assertEquals("79 2A 00 00 02 00 04 00 0F FE FF FF FF FF FF FF FF 06 00 5A 01 00 04 00", hex(def, 0));
        assertEquals("0II_I", def.signatures().get(0).callingConvention());
        assertEquals(8, def.functions().get(0).i32RegisterCount());
    }

    @Test
    void integerImmediatesAcceptCLiteralsAndWrapUnsigned() {
        ModuleDef def = assemble("""
                vm.module @m
                vm.func @f() -> () {
                  %i0 = vm.const.i32 0x10
                  %i1 = vm.const.i32 -1
                  %i2 = vm.const.i32 4294967295
                  %i3 = vm.const.i32 010
                  vm.return
                }
                """);
        assertEquals("79 0D 10 00 00 00 00 00 0D FF FF FF FF 01 00 0D FF FF FF FF 02 00 0D 08 00 00 00 03 00 5A 00 00",
                hex(def, 0));
    }

    @Test
    void extensionOpsCarryTheirPrefixAndRequirementBits() {
        ModuleDef def = assemble("""
                vm.module @m
                vm.func @f() -> () {
                  %i0 = vm.const.f32 1.5
                  vm.return
                }
                vm.func @g() -> () {
                  %i2:3 = vm.const.f64 -2.5
                  vm.return
                }
                """);
        assertEquals("79 E0 05 00 00 C0 3F 00 00 5A 00 00", hex(def, 0));
        assertEquals("79 E1 05 00 00 00 00 00 00 04 C0 02 00 5A 00 00", hex(def, 1));
        assertEquals(FeatureBits.EXT_F32, def.functions().get(0).requirements());
        assertEquals(FeatureBits.EXT_F64, def.functions().get(1).requirements());
        assertEquals(FeatureBits.EXT_F32 | FeatureBits.EXT_F64, def.requirements());
    }

    @Test
    void refMoveBitAndImportOrdinalBit() {
        ModuleDef def = assemble("""
                vm.module @m
                vm.import @other.take cconv "0r_v"
                vm.func @f(%r0: !vm.ref<?>) -> () {
                  vm.call @other.take(%R0)
                  vm.return
                }
                """);
        assertEquals("79 58 00 00 00 80 01 00 00 C0 00 00 5A 00 00 00", hex(def, 0));
        assertEquals(1, def.functions().get(0).refRegisterCount());
        assertEquals(List.of(new ImportDef("other.take", new ModuleDef.SignatureDef("0r_v", List.of()), ImportDef.REQUIRED)),
                def.imports());
    }

    @Test
    void branchesRemapRegistersAndTargetBlockMarkers() {
        ModuleDef def = assemble("""
                vm.module @m
                vm.func @f(%i0: i32) -> (i32) {
                ^bb0:
                  vm.cond_br %i0, ^bb1(%i0->%i1), ^bb2()
                ^bb1:
                  vm.return %i1
                ^bb2:
                  vm.br ^bb1(%i0->%i1)
                }
                """);
        assertEquals("79 57 00 00 14 00 00 00 01 00 00 00 01 00 1A 00 00 00 00 00 "
                + "79 5A 01 00 01 00 79 56 14 00 00 00 01 00 00 00 01 00", hex(def, 0));
        assertEquals(3, def.functions().get(0).blockCount());
    }

    @Test
    void branchTableHasDefaultThenDenseCases() {
        ModuleDef def = assemble("""
                vm.module @m
                vm.func @f(%i0: i32) -> () {
                ^bb0:
                  vm.br_table %i0 { default: ^bb1(), 0: ^bb2(), 1: ^bb1(%i0->%i1) }
                ^bb1:
                  vm.return
                ^bb2:
                  vm.return
                }
                """);
        assertEquals("79 83 00 00 1C 00 00 00 00 00 02 00 20 00 00 00 00 00 1C 00 00 00 01 00 00 00 01 00 "
                + "79 5A 00 00 79 5A 00 00", hex(def, 0));
    }

    @Test
    void variadicCallsListSegmentSizesBeforeOperands() {
        ModuleDef def = assemble("""
                vm.module @m
                vm.import @m2.sum cconv "0CiDi_i"
                vm.func @f(%i0: i32, %i1: i32) -> (i32) {
                  %i2 = vm.call.variadic @m2.sum segments[2, 1](%i0, %i1, %i0)
                  vm.return %i2
                }
                """);
        assertEquals("79 59 00 00 00 80 02 00 02 00 01 00 03 00 00 00 01 00 00 00 01 00 02 00 5A 00 01 00 02 00",
                hex(def, 0));
    }

    @Test
    void yieldableCallsResumeAtABlockWithResults() {
        ModuleDef def = assemble("""
                vm.module @m
                vm.import @m2.y cconv "0i_i"
                vm.func @f(%i0: i32) -> (i32) {
                ^bb0:
                  vm.call.yieldable @m2.y(%i0) -> ^bb1(%i1)
                ^bb1:
                  vm.return %i1
                }
                """);
        assertEquals("79 87 00 00 00 80 01 00 00 00 12 00 00 00 01 00 01 00 79 5A 01 00 01 00", hex(def, 0));
    }

    @Test
    void internalCallsByNameOrdinalAndForwardReference() {
        ModuleDef def = assemble("""
                vm.module @m
                vm.func @a() -> () {
                  vm.call @b()
                  vm.call @m.b()
                  vm.call @m:1()
                  vm.return
                }
                vm.func @b() -> () {
                  vm.return
                }
                """);
        // The first call's lists start at an even pc; the next two need a pad byte each.
        assertEquals("79 58 01 00 00 00 00 00 00 00 58 01 00 00 00 00 00 00 00 00 "
                + "58 01 00 00 00 00 00 00 00 00 5A 00 00 00", hex(def, 0));
    }

    @Test
    void namedGlobalsArePackedBySizeAndRwdataOffsetsGrowTheState() {
        ModuleDef def = assemble("""
                vm.module @m
                vm.global.i64 mutable @a
                vm.global.i32 private @b = 0 : i32
                vm.func @f() -> () {
                  %i0 = vm.global.load.i32 @b
                  %i2:3 = vm.global.load.i64 @a
                  vm.global.store.i64 %i2:3, @a
                  vm.global.store.i32 %i0, .rwdata[16]
                  %r0 = vm.global.load.ref .refs[2] : !vm.buffer
                  vm.return
                }
                """);
        assertEquals("79 00 00 00 00 00 00 00 04 08 00 00 00 02 00 05 08 00 00 00 02 00 01 10 00 00 00 00 00 "
                + "08 02 00 00 00 00 00 00 00 00 80 5A 00 00 00", hex(def, 0));
        assertEquals(new ModuleDef.ModuleStateDef(20, 3), def.state());
        assertEquals(List.of("!vm.buffer"), def.types());
    }

    @Test
    void typesAreLookedUpOrAppendedInOrder() {
        ModuleDef def = assemble("""
                vm.module @m
                vm.type !vm.buffer
                vm.func @f(%i0: i32) -> () {
                  %r0 = vm.list.alloc %i0 : !vm.list<i32>
                  %r1 = vm.list.alloc %i0 : !vm.list<vm.buffer>
                  %r2 = vm.cast.any.ref %R0 : !vm.ref<?> -> !vm.list<i32>
                  vm.return
                }
                """);
        assertEquals(List.of("!vm.buffer", "i32", "!vm.list<i32>"), def.types());
        assertEquals("79 12 01 00 00 00 00 00 00 80 12 00 00 00 00 00 00 01 80 82 00 C0 02 00 00 00 02 80 5A 00 00 00",
                hex(def, 0));
    }

    @Test
    void stringsAreLengthPrefixedUtf8() {
        ModuleDef def = assemble("""
                vm.module @m
                vm.func @f(%i0: i32) -> () {
                  vm.fail %i0, "boom # not a comment"
                }
                """);
        assertEquals("79 5B 00 00 14 00 " + "62 6F 6F 6D 20 23 20 6E 6F 74 20 61 20 63 6F 6D 6D 65 6E 74",
                hex(def, 0));
    }

    @Test
    void rodataSegmentsAreEmbeddedHexBytes() {
        ModuleDef def = assemble("""
                vm.module @m
                vm.rodata[0] = 0102aB
                vm.rodata[1] =
                vm.func @f() -> () {
                  %r0 = vm.const.ref.rodata 1  // 0b
                  vm.return
                }
                """);
        assertEquals(2, def.rodata().size());
        assertEquals((byte) 0xAB, def.rodata().get(0).data().get(ValueLayout.JAVA_BYTE, 2));
        assertEquals(0, def.rodata().get(1).data().byteSize());
        assertEquals("79 11 01 00 00 00 00 80 5A 00 00 00", hex(def, 0));
    }

    @Test
    void registerCountsComeFromTheBodyUnlessArgumentsWouldNotFit() {
        ModuleDef def = assemble("""
                vm.module @m
                vm.func @unused(%i0: i32) -> (%i0: i32, %r0: !vm.ref<?>) {
                  vm.return
                }
                vm.func @many(%i0: i32, %i1: i32, %i2: i32, %r0: !vm.ref<?>, %r1: !vm.ref<?>, %r2: !vm.ref<?>) -> () {
                  vm.return
                }
                vm.func @mixed(%i0: i32, %i2:3: i64) -> (i64) {
                  vm.return %i2:3
                }
                vm.func @sequential(%i0: i32, %i1:2: i64) -> (%i2:3: i64) {
                  vm.return %i2:3
                }
                """);
        // IREE counts only the body's registers (0, rounded up to 1 by runtimes, holds %i0);
        // named results are documentation.
        assertEquals(0, def.functions().get(0).i32RegisterCount());
        assertEquals(0, def.functions().get(0).refRegisterCount());
        assertEquals("0i_ir", def.signatures().get(0).callingConvention());
        // Three arguments do not fit one register: count them (i32 and ref banks).
        assertEquals(3, def.functions().get(1).i32RegisterCount());
        assertEquals(3, def.functions().get(1).refRegisterCount());
        // i64 arguments sit at the next even register; IREE's sequential spelling is accepted too.
        assertEquals("0iI_I", def.signatures().get(2).callingConvention());
        assertEquals("0iI_I", def.signatures().get(3).callingConvention());
        assertEquals(hex(def, 2), hex(def, 3));
    }
}
