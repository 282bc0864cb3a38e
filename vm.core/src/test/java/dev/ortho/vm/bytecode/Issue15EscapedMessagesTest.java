package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.Context;
import dev.ortho.vm.Instance;
import dev.ortho.vm.asm.Assembler;
import org.junit.jupiter.api.Test;

/**
 * Issue 15: an error message echoed raw NUL bytes from a corrupt module. Names and strings from a
 * module reach messages escaped ({@link dev.ortho.base.MessageText#printable}).
 */
class Issue15EscapedMessagesTest {
    private static final String IMPORTER = """
            vm.module @app version 0
            vm.import @qlib.f cconv "0v_v"
            vm.export @g
            vm.func @g() -> () {
              vm.return
            }
            """;
    private static final String FAILER = """
            vm.module @qapp version 0
            vm.export @qboom
            vm.func @qboom() -> () {
            ^bb0:
              %i0 = vm.const.i32 10
              vm.fail %i0, "qfailed"
            }
            """;

    private final Instance instance = new Instance();

    /** {@code source} assembled, with every byte {@code q} of the archive replaced by {@code replacement}. */
    private BytecodeModule corrupted(String source, byte replacement, int expectedReplacements) {
        byte[] archive = BytecodeArchive.write(new Assembler(VmasmFixture.EXTENSIONS).assemble(source, "m.vmasm"));
        int replaced = 0;
        for (int i = 0; i < archive.length; i++) {
            if (archive[i] == 'q') {
                archive[i] = replacement;
                replaced++;
            }
        }
        assertEquals(expectedReplacements, replaced);
        return VmasmFixture.create(instance, BytecodeArchive.read(archive), VmasmFixture.EXTENSIONS);
    }

    @Test
    void anImportNameWithANulByteIsEscapedInTheLinkError() {
        BytecodeModule app = corrupted(IMPORTER, (byte) 0, 1);
        StatusException e = assertThrows(StatusException.class, () -> Context.create(instance, app).close());
        assertEquals(StatusCode.NOT_FOUND, e.code());
        assertFalse(e.toString().contains("\0"), e.toString());
        assertTrue(e.getMessage().contains("module '\\x00lib' required for import '\\x00lib.f'"), e.getMessage());
    }

    @Test
    void aFailMessageAndTheBacktraceNamesAreEscaped() {
        BytecodeModule app = corrupted(FAILER, (byte) 0x1B, 3);
        try (Context context = Context.create(instance, app)) {
            StatusException e = ModuleTestRunner.invoke(context, context.resolveFunction("\u001Bapp.\u001Bboom"), new int[1]);
            assertEquals(StatusCode.ABORTED, e.code());
            assertFalse(e.toString().contains("\u001B"), e.toString());
            assertEquals("\\x1Bfailed", e.baseMessage());
            assertTrue(e.getMessage().contains("bytecode \\x1Bapp.\\x1Bboom:"), e.getMessage());
        }
    }

    @Test
    void aMissingExportsNameIsEscaped() {
        try (Context context = Context.create(instance, corrupted(FAILER, (byte) 0, 3))) {
            StatusException e = assertThrows(StatusException.class, () -> context.resolveFunction("\0app.nope\n"));
            assertEquals("no function `nope\\x0A` exported by module `\\x00app`", e.getMessage());
        }
    }
}
