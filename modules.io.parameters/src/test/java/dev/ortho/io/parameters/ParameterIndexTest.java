package dev.ortho.io.parameters;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Scopes and keys as IREE's {@code --parameters=[scope=]file} flags build them. */
class ParameterIndexTest {
    @TempDir
    Path temp;

    Path write(String name, byte[] bytes) throws IOException {
        Path file = temp.resolve(name);
        Files.write(file, bytes);
        return file;
    }

    @Test
    void specsNameAScopeBeforeTheFirstEqualsSign() throws IOException {
        Path one = write("one.irpa", new IrpaWriter().data("w", new byte[] {1}).build());
        Path two = write("a=b.irpa", new IrpaWriter().data("w", new byte[] {2}).data("x", new byte[] {3}).build());
        try (ParameterIndex index = ParameterIndex.open(List.of(one.toString(), "model=" + one, "model=" + two))) {
            assertEquals(List.of("", "model"), index.scopes());
            assertEquals(1, index.lookup("", "w").contents().get(ValueLayout.JAVA_BYTE, 0));
            // Several files may share a scope; the first entry under a key wins (IREE's linear lookup).
            assertEquals(1, index.lookup("model", "w").contents().get(ValueLayout.JAVA_BYTE, 0));
            assertEquals(3, index.lookup("model", "x").contents().get(ValueLayout.JAVA_BYTE, 0));
            assertEquals(List.of("w", "x"), index.entries("model").stream().map(ParameterEntry::key).toList());
        }
        try (ParameterIndex index = ParameterIndex.open(List.of("s=" + two))) {
            assertEquals(List.of("s"), index.scopes(), "only the first '=' splits: the path keeps its own");
        }
    }

    @Test
    void lookupsNameWhatIsMissing() throws IOException {
        Path file = write("p.irpa", new IrpaWriter().data("w", new byte[] {1}).build());
        try (ParameterIndex index = ParameterIndex.open(List.of("model=" + file))) {
            StatusException scope = assertThrows(StatusException.class, () -> index.lookup("other", "w"));
            assertEquals(StatusCode.NOT_FOUND, scope.code());
            assertTrue(scope.getMessage().contains("scopes like 'other'"), scope.getMessage());
            StatusException key = assertThrows(StatusException.class, () -> index.lookup("model", "v"));
            assertEquals(StatusCode.NOT_FOUND, key.code());
            assertTrue(key.getMessage().contains("no parameter found in index with key 'v'"), key.getMessage());
        }
    }

    @Test
    void anEmptyArchiveStillServesItsScope() throws IOException {
        Path file = write("e.irpa", new IrpaWriter().build());
        try (ParameterIndex index = ParameterIndex.open(List.of("model=" + file))) {
            assertTrue(index.hasScope("model"));
            assertEquals(StatusCode.NOT_FOUND, assertThrows(StatusException.class,
                    () -> index.lookup("model", "w")).code());
        }
    }

    @Test
    void onlyIrpaFilesAreRead() {
        StatusException e = assertThrows(StatusException.class,
                () -> ParameterIndex.open(List.of("model=weights.gguf")));
        assertEquals(StatusCode.UNIMPLEMENTED, e.code());
        assertTrue(e.getMessage().contains("unsupported file format `gguf`"), e.getMessage());
        assertTrue(e.getMessage().contains("while opening parameters 'model=weights.gguf'"), e.getMessage());
    }

    @Test
    void aFailingSpecReleasesTheFilesOpenedBeforeIt() throws IOException {
        Path file = write("p.irpa", new IrpaWriter().data("w", new byte[] {1}).build());
        ParameterArchive probe;
        try (ParameterIndex index = ParameterIndex.open(List.of("model=" + file))) {
            probe = index.archives().get(0);
        }
        assertEquals(StatusCode.FAILED_PRECONDITION, assertThrows(StatusException.class, probe::retain).code());
        StatusException e = assertThrows(StatusException.class,
                () -> ParameterIndex.open(List.of("model=" + file, "model=" + temp.resolve("missing.irpa"))));
        assertEquals(StatusCode.NOT_FOUND, e.code());
    }

    @Test
    void splatsCanBeAddedInCode() {
        try (ParameterIndex index = ParameterIndex.builder().addSplat("", "zeros", new byte[] {0, 0}, 8).build()) {
            ParameterEntry entry = index.lookup("", "zeros");
            assertTrue(entry.isSplat());
            assertArrayEquals(new byte[] {0, 0}, entry.splatPattern());
        }
        assertEquals(StatusCode.INVALID_ARGUMENT, assertThrows(StatusException.class,
                () -> ParameterIndex.builder().addSplat("", "odd", new byte[3], 9)).code());
        assertEquals(StatusCode.INVALID_ARGUMENT, assertThrows(StatusException.class,
                () -> ParameterIndex.builder().addSplat("", "ragged", new byte[4], 10)).code());
    }

    @Test
    void keysCompareAsBytes() {
        byte[] file = new IrpaWriter().data("caf\u00e9", new byte[] {7}).build();
        try (ParameterArchive archive = ParameterArchive.of(java.lang.foreign.MemorySegment.ofArray(file));
                ParameterIndex index = ParameterIndex.builder().add("", archive).build()) {
            assertEquals(7, index.lookup("", "caf\u00e9").contents().get(ValueLayout.JAVA_BYTE, 0));
            assertEquals(7, index.lookup("", new byte[] {'c', 'a', 'f', (byte) 0xC3, (byte) 0xA9}).contents()
                    .get(ValueLayout.JAVA_BYTE, 0));
            assertEquals(StatusCode.NOT_FOUND, assertThrows(StatusException.class,
                    () -> index.lookup("", new byte[] {'c', 'a', 'f', (byte) 0xE9})).code());
        }
    }
}
