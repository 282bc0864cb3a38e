package dev.ortho.vm.asm;

import static dev.ortho.vm.asm.AsmTesting.assemble;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.bytecode.ModuleDef.AttrDef;
import dev.ortho.vm.bytecode.ModuleDef.DependencyDef;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Ortho's directives for what IREE's VMASM cannot say: module dependencies, module and function
 * reflection attributes; plus the forms IREE prints but cannot read back (indirect globals,
 * traces, typed ref switches). They survive the archive and the disassembler.
 */
class OrthoDirectivesTest {
    private static final String SOURCE = """
            vm.module @prog version 2 attributes {iree.abi.version = "1"}
            vm.type !hal.buffer
            vm.dependency @hal version 7
            vm.dependency optional @vmvx version 0
            vm.import @hal.ex.submit cconv "0r_i"

            vm.export @dispatch
            vm.func @dispatch(%r0: !vm.ref<?>, %i0: i32) -> () attributes {binding_count = "2", constant_count = "1", local_memory = "0"} {
            ^bb0:
              %i1 = vm.call @hal.ex.submit(%r0)
              %i2 = vm.global.load.indirect.i32 .rwdata[%i0]
              vm.global.store.indirect.i32 %i2, .rwdata[%i1]
              %r1 = vm.global.load.indirect.ref .refs[%i0] : !hal.buffer
              vm.global.store.indirect.ref %R1, .refs[%i1] : !hal.buffer
              %r2 = vm.switch.ref %i0[%r0, %r1] else %r0 : !hal.buffer
              vm.trace "event"(%i0, %r2)
              vm.print "nothing"()
              vm.discard.refs %r0, %r2
              vm.return
            }
            """;

    @Test
    void dependenciesAndAttributesLandInTheModuleDef() {
        ModuleDef def = assemble(SOURCE);
        assertEquals(List.of(new DependencyDef("hal", 7, DependencyDef.REQUIRED),
                new DependencyDef("vmvx", 0, DependencyDef.OPTIONAL)), def.dependencies());
        assertEquals(List.of(new AttrDef("iree.abi.version", "1")), def.attrs());
        assertEquals(List.of(new AttrDef("binding_count", "2"), new AttrDef("constant_count", "1"),
                new AttrDef("local_memory", "0")), def.signatures().get(0).attrs());
        assertEquals("0ri_v", def.signatures().get(0).callingConvention());
    }

    @Test
    void disassemblyPrintsTheDirectivesAndReassemblesToTheSameArchive() {
        ModuleDef def = assemble(SOURCE);
        byte[] archive = BytecodeArchive.write(def);
        ModuleDef read = BytecodeArchive.read(archive);
        BytecodeArchive.verify(read);
        assertEquals(def.dependencies(), read.dependencies());
        assertEquals(def.signatures(), read.signatures());
        String text = AsmTesting.DISASSEMBLER.disassemble(read);
        assertEquals(SOURCE, text);
        assertArrayEquals(archive, BytecodeArchive.write(assemble(text)));
    }

    @Test
    void attributeStringsEscapeQuotesBackslashesAndControlCharacters() {
        ModuleDef def = assemble("""
                vm.module @m attributes {"odd key" = "say \\x22hi\\x22 \\x5C # // {}", plain = "line\\x0Abreak"}
                vm.func @f() -> () {
                  vm.return
                }
                """);
        assertEquals(List.of(new AttrDef("odd key", "say \"hi\" \\ # // {}"), new AttrDef("plain", "line\nbreak")),
                def.attrs());
        String text = AsmTesting.DISASSEMBLER.disassemble(def);
        assertEquals("vm.module @m version 0 attributes {\"odd key\" = \"say \\x22hi\\x22 \\x5C # // {}\", "
                + "plain = \"line\\x0Abreak\"}", text.lines().findFirst().orElseThrow());
        assertEquals(def.attrs(), assemble(text).attrs());
    }

    @Test
    void globalStorageBeyondDirectUseSurvivesTheText() {
        ModuleDef def = assemble("""
                vm.module @m
                vm.global.i64 @unused
                vm.global_storage refs 2
                vm.func @f(%i0: i32) -> (i32) {
                  %i1 = vm.global.load.indirect.i32 .rwdata[%i0]
                  vm.return %i1
                }
                """);
        assertEquals(new ModuleDef.ModuleStateDef(8, 2), def.state());
        String text = AsmTesting.DISASSEMBLER.disassemble(def);
        assertEquals("vm.global_storage bytes 8 refs 2", text.lines().skip(1).findFirst().orElseThrow());
        assertArrayEquals(BytecodeArchive.write(def), BytecodeArchive.write(assemble(text)));
    }

    @Test
    void namedRefGlobalsTakeOrdinalsInDeclarationOrder() {
        ModuleDef def = assemble("""
                vm.module @m
                vm.global.ref private mutable @device : !vm.buffer
                vm.global.i32 @count
                vm.global.ref @executable : !vm.buffer
                vm.func @f() -> () {
                  %r0 = vm.global.load.ref @executable : !vm.buffer
                  vm.global.store.ref %R0, @device : !vm.buffer
                  vm.return
                }
                """);
        assertEquals(new ModuleDef.ModuleStateDef(4, 2), def.state());
        ModuleDef explicit = assemble("""
                vm.module @m
                vm.global_storage bytes 4
                vm.func @f() -> () {
                  %r0 = vm.global.load.ref .refs[1] : !vm.buffer
                  vm.global.store.ref %R0, .refs[0] : !vm.buffer
                  vm.return
                }
                """);
        assertArrayEquals(BytecodeArchive.write(explicit), BytecodeArchive.write(def));
    }
}
