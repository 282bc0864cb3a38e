package dev.ortho.vm.asm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Stream;

/**
 * Locates IREE's VM conformance suite ({@code shared/conformance/vm}, test data outside the
 * repository): the system property {@code ortho.conformance.vm} or the first ancestor of the
 * working directory that has {@code shared/conformance/vm}. Shared by the assembler tests and the
 * bytecode conformance tests; callers skip (assumption) when the suite is absent.
 */
public final class ConformanceFiles {
    private ConformanceFiles() {
    }

    /** The suite's directory, or null when it is not present. */
    private static Path directory() {
        String property = System.getProperty("ortho.conformance.vm");
        if (property != null && Files.isDirectory(Paths.get(property))) {
            return Paths.get(property);
        }
        for (Path p = Paths.get("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path candidate = p.resolve("shared/conformance/vm");
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    /** The suite's {@code .vmasm} files in name order; empty when the suite is not present. */
    public static List<Path> files() throws IOException {
        Path dir = directory();
        if (dir == null) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".vmasm")).sorted().toList();
        }
    }
}
