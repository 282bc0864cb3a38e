package dev.ortho.vm.asm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Malformed VMASM fails with INVALID_ARGUMENT {@code file:line:col: ...} naming what was expected. */
class ParseErrorTest {
    private static final String F = "vm.module @m\nvm.func @f(%i0: i32) -> () {\n";

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("vm.func @f() -> () {\n  vm.return\n}\n",
                        "t.vmasm:1:1: expected 'vm.module @name' before functions"),
                Arguments.of(F + "  %i1 = vm.add.i32 %i0\n  vm.return\n}\n",
                        "t.vmasm:3:23: expected ',' and operand 'right' at end of line"),
                Arguments.of(F + "  %i1 = vm.frobnicate %i0\n  vm.return\n}\n",
                        "t.vmasm:3:9: unknown VM instruction 'vm.frobnicate'"),
                Arguments.of(F + "  %i1:2 = vm.add.i32 %i0, %i0\n  vm.return\n}\n",
                        "t.vmasm:3:3: expected 32-bit register like %i1, got a register pair"),
                Arguments.of(F + "  %i2:3 = vm.add.i64 %i0:2, %i0:1\n  vm.return\n}\n",
                        "t.vmasm:3:22: expected 64-bit register pair %i0:1"),
                Arguments.of(F + "  %i2:3 = vm.add.i64 %i0, %i0\n  vm.return\n}\n",
                        "t.vmasm:3:22: expected 64-bit register like %i0:1"),
                Arguments.of(F + "  vm.br ^bb9()\n}\n",
                        "t.vmasm:3:9: unknown block label ^bb9 in function @f"),
                Arguments.of(F + "  vm.call @nope()\n  vm.return\n}\n",
                        "t.vmasm:3:11: unknown function @nope"),
                Arguments.of(F + "  %i1 = vm.const.i32 12abc\n  vm.return\n}\n",
                        "t.vmasm:3:22: expected i32 immediate, got '12abc'"),
                Arguments.of(F + "  %i1 = vm.const.i32 4294967296\n  vm.return\n}\n",
                        "t.vmasm:3:22: expected i32 immediate, got '4294967296'"),
                Arguments.of(F + "  %i1 = vm.const.i32\n  vm.return\n}\n",
                        "t.vmasm:3:21: expected i32 immediate at end of line"),
                Arguments.of(F + "  %i1 = vm.const.f32 1e99\n  vm.return\n}\n",
                        "t.vmasm:3:22: expected f32 immediate, got '1e99'"),
                Arguments.of(F + "  %i1 = vm.list.size %R0\n  vm.return\n}\n",
                        "t.vmasm:3:22: operand does not allow a ref move (%R); use %r"),
                Arguments.of(F + "  vm.fail %i0, \"unterminated\n}\n",
                        "t.vmasm:3:16: unterminated string"),
                Arguments.of(F + "  %i1 = vm.add.i32 %i0, %i0, %i0\n  vm.return\n}\n",
                        "t.vmasm:3:28: unexpected ',' at end of line"),
                Arguments.of(F + "  %i1 = vm.add.i32 %i0, %i0\n}\n",
                        "t.vmasm:4:1: expected a terminator (vm.return, vm.fail, vm.br, ...) before '}' of function @f"),
                Arguments.of(F + "  vm.return\n",
                        "t.vmasm:4:1: expected '}' closing function @f before end of file"),
                Arguments.of("vm.module @m\nvm.rodata[1] = 00\n",
                        "t.vmasm:2:11: expected rodata ordinal 0 (segments are declared in ordinal order), got 1"),
                Arguments.of("vm.module @m\nvm.rodata[0] = 0G\n", "t.vmasm:2:17: expected hex digit"),
                Arguments.of("vm.module @m\nvm.import @nodot cconv \"0_v\"\n",
                        "t.vmasm:2:11: expected import name like @module.function, got '@nodot'"),
                Arguments.of("vm.module @m\nvm.export @g\nvm.func @f() -> () {\n  vm.return\n}\n",
                        "t.vmasm:2:1: export @g names unknown function @g"),
                Arguments.of("vm.module @m\nvm.frob\n", "t.vmasm:2:1: expected a top-level directive (vm.module, "
                        + "vm.type, vm.import, vm.dependency, vm.rodata[N], vm.global.<type>, vm.global_storage, vm.export, "
                        + "vm.func), got 'vm.frob'"),
                Arguments.of(F + "^bb0:\n  vm.return\n^bb0:\n  vm.return\n}\n", "t.vmasm:5:1: duplicate block label ^bb0"),
                Arguments.of("vm.module @m\nvm.func @f(%i1: i32) -> () {\n  vm.return\n}\n",
                        "t.vmasm:2:12: expected value argument %i0 matching its type"),
                Arguments.of(F + "  %i1 = vm.global.load.i32 @missing\n  vm.return\n}\n",
                        "t.vmasm:3:28: unknown global @missing"),
                Arguments.of("vm.module @m\nvm.global.i64 @g\n" + "vm.func @f() -> () {\n  %i0 = vm.global.load.i32 @g\n  vm.return\n}\n",
                        "t.vmasm:4:28: global @g holds 8 bytes but the instruction accesses 4 bytes"),
                Arguments.of(F + "  %r0 = vm.list.alloc %i0 : !vm.lost<i32>\n  vm.return\n}\n",
                        "t.vmasm:3:29: expected list type like !vm.list<i32>, got '!vm.lost<i32>'"),
                Arguments.of(F + "  vm.br_table %i0 { default: ^bb0(), 1: ^bb0() }\n}\n",
                        "t.vmasm:3:38: expected case 0 (cases are dense from 0), got 1"),
                Arguments.of("vm.module @m\nvm.dependency @hal version x\n",
                        "t.vmasm:2:28: expected minimum version (0..4294967295), got 'x'"),
                Arguments.of("vm.module @m attributes {a = \"1\", a = \"2\"}\n", "t.vmasm:1:35: duplicate attribute a"),
                Arguments.of(F + "  %i1 = vm.ctlz.i32 %i99999\n  vm.return\n}\n",
                        "t.vmasm:3:21: value register ordinal out of range (max 32767)"),
                Arguments.of(F + "  vm.add.i32 %i0, %i0\n  vm.return\n}\n",
                        "t.vmasm:3:3: expected a result register: %x = vm.add.i32 %i0, %i0"),
                Arguments.of(F + "  %i1 = vm.cond_br %i0, ^bb0(), ^bb0()\n}\n", "t.vmasm:3:3: vm.cond_br has no result"),
                Arguments.of(F + "  %i1 = vm.call.variadic @f(%i0)\n  vm.return\n}\n",
                        "t.vmasm:3:28: expected 'segments[...]' after the callee of a variadic call, got '(%i0)'"),
                Arguments.of(F + "  vm.call @other:1()\n  vm.return\n}\n",
                        "t.vmasm:3:11: internal function ordinal must use this module's name @m:N"),
                Arguments.of("vm.module @m\nvm.module @n\n", "t.vmasm:2:1: module already declared as @m"));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void reportsFileLineColumnAndWhatWasExpected(String source, String message) {
        StatusException e = assertThrows(StatusException.class, () -> AsmTesting.ASSEMBLER.assemble(source, "t.vmasm"));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertEquals(message, e.getMessage());
    }

    @Test
    void missingFileIsNotFound(@TempDir Path dir) {
        Path missing = dir.resolve("absent.vmasm");
        StatusException e = assertThrows(StatusException.class, () -> AsmTesting.ASSEMBLER.assemble(missing));
        assertEquals(StatusCode.NOT_FOUND, e.code());
        assertEquals("VMASM file " + missing + " not found", e.getMessage());
    }

    @Test
    void errorsInAFileNameIt(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("prog.vmasm"), "vm.module @m\nvm.func @f() -> () {\n  vm.nope\n}\n");
        StatusException e = assertThrows(StatusException.class, () -> AsmTesting.ASSEMBLER.assemble(file));
        assertEquals("prog.vmasm:3:3: unknown VM instruction 'vm.nope'", e.getMessage());
    }
}
