package dev.ortho.vm.asm;

import static dev.ortho.vm.asm.AsmTesting.assemble;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.bytecode.ModuleDef.BytecodeLocation;
import dev.ortho.vm.bytecode.ModuleDef.DebugDatabaseDef;
import dev.ortho.vm.bytecode.ModuleDef.SourceMapDef;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The text form details of {@code iree-dump-module --output=disassembly}. */
class DisassemblerTest {

    @Test
    void namesFunctionsByExportThenOrdinalAndCallsInternalFunctionsByOrdinal() {
        ModuleDef def = assemble("""
                vm.module @m
                vm.export @pub = @helper
                vm.export @alias = @helper
                vm.func @main() -> () {
                  vm.call @helper()
                  vm.return
                }
                vm.func @helper() -> () {
                  vm.return
                }
                """);
        assertEquals("""
                vm.module @m version 0

                vm.func @fn0() -> () {
                ^bb0:
                  vm.call @m:1()
                  vm.return
                }

                vm.export @pub
                vm.export @alias = @pub
                vm.func @pub() -> () {
                ^bb0:
                  vm.return
                }
                """, AsmTesting.DISASSEMBLER.disassemble(def));
    }

    @Test
    void debugDatabaseNamesInternalCallees() {
        ModuleDef def = assemble("""
                vm.module @m
                vm.func @main() -> () {
                  vm.call @helper()
                  vm.return
                }
                vm.func @helper() -> () {
                  vm.return
                }
                """);
        ModuleDef named = new ModuleDef(def.name(), def.version(), def.requirements(), def.attrs(), def.types(),
                def.dependencies(), def.imports(), def.exports(), def.signatures(), def.rodata(), def.rwdata(),
                def.state(), def.functions(), def.bytecodeVersion(), def.bytecode(),
                new DebugDatabaseDef(List.of(), List.of(new SourceMapDef("main", List.<BytecodeLocation>of()),
                        new SourceMapDef("helper", List.<BytecodeLocation>of()))));
        String text = AsmTesting.DISASSEMBLER.disassemble(named);
        assertEquals("""
                vm.module @m version 0

                vm.func @main() -> () {
                ^bb0:
                  vm.call @m.helper()
                  vm.return
                }

                vm.func @helper() -> () {
                ^bb0:
                  vm.return
                }
                """, text);
        assertArrayEquals(BytecodeArchive.write(def), BytecodeArchive.write(assemble(text)));
    }

    @Test
    void bytecodeOffsetsPrefixEveryLineAndAreIgnoredByTheAssembler() {
        ModuleDef def = assemble("""
                vm.module @m
                vm.func @f(%i0: i32) -> (i32) {
                ^bb0:
                  vm.cond_br %i0, ^bb1(), ^bb0()
                ^bb1:
                  vm.return %i0
                }
                """);
        String text = AsmTesting.DISASSEMBLER.disassemble(def, true);
        assertEquals("""
                vm.module @m version 0

                vm.func @fn0(%i0: i32) -> (i32) {
                [00000000]^bb0:
                [00000001]  vm.cond_br %i0, ^bb1(), ^bb0()
                [00000010]^bb1:
                [00000011]  vm.return %i0
                }
                """, text);
        assertArrayEquals(BytecodeArchive.write(def), BytecodeArchive.write(assemble(text)));
        assertEquals("vm.cond_br %i0, ^00000010(), ^00000000()", AsmTesting.DISASSEMBLER.disassembleInstruction(def, 0, 1));
    }

    @Test
    void floatsPrintLikeCPercentGAndReadBackToTheSameBits() {
        ModuleDef def = assemble("""
                vm.module @m
                vm.func @f() -> () {
                  %i0 = vm.const.f32 0.1
                  %i1 = vm.const.f32 1e-5
                  %i2 = vm.const.f32 -inf
                  %i3 = vm.const.f32 nan
                  %i4 = vm.const.f32 -0
                  %i5 = vm.const.f32 123456789
                  %i6 = vm.const.f32 0x1.8p1
                  %i8:9 = vm.const.f64 0.1
                  %i10:11 = vm.const.f64 1e300
                  %i12:13 = vm.const.f64 100
                  vm.return
                }
                """);
        String text = AsmTesting.DISASSEMBLER.disassemble(def);
        assertEquals(List.of("%i0 = vm.const.f32 0.100000001", "%i1 = vm.const.f32 9.99999975e-06",
                "%i2 = vm.const.f32 -inf", "%i3 = vm.const.f32 nan", "%i4 = vm.const.f32 -0",
                "%i5 = vm.const.f32 123456792", "%i6 = vm.const.f32 3", "%i8:9 = vm.const.f64 0.10000000000000001",
                "%i10:11 = vm.const.f64 1.0000000000000001e+300", "%i12:13 = vm.const.f64 100"),
                text.lines().filter(l -> l.contains("vm.const")).map(String::trim).toList());
        assertArrayEquals(BytecodeArchive.write(def), BytecodeArchive.write(assemble(text)));
    }

    @Test
    void integerConstantsCarryTheirHexInAComment() {
        ModuleDef def = assemble("""
                vm.module @m
                vm.rodata[0] = 00FF
                vm.func @f() -> () {
                  %i0 = vm.const.i32 -1
                  %i2:3 = vm.const.i64 255
                  %r0 = vm.const.ref.rodata 0
                  vm.return
                }
                """);
        assertEquals(List.of("%i0 = vm.const.i32 -1  // 0xFFFFFFFF", "%i2:3 = vm.const.i64 255  // 0x00000000000000FF",
                "%r0 = vm.const.ref.rodata 0  // 2b"),
                AsmTesting.DISASSEMBLER.disassemble(def).lines().filter(l -> l.contains("vm.const"))
                        .map(String::trim).toList());
    }

    @Test
    void exportsOutOfFunctionOrderAreListedFirstToKeepTheTableOrder() {
        ModuleDef def = assemble("""
                vm.module @m
                vm.export @second = @b
                vm.export @first = @a
                vm.func @a() -> () {
                  vm.return
                }
                vm.func @b() -> () {
                  vm.return
                }
                """);
        String text = AsmTesting.DISASSEMBLER.disassemble(def);
        assertEquals("""
                vm.module @m version 0
                vm.export @second
                vm.export @first

                vm.func @first() -> () {
                ^bb0:
                  vm.return
                }

                vm.func @second() -> () {
                ^bb0:
                  vm.return
                }
                """, text);
        assertArrayEquals(BytecodeArchive.write(def), BytecodeArchive.write(assemble(text)));
    }
}
