package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.asm.ConformanceFiles;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Byte compatibility with IREE's own assembler, when one is available: every conformance file is
 * assembled by {@code iree-as-module} and by Ortho ({@link Assembler} + {@link BytecodeArchive#write});
 * the archives must be identical, and reading IREE's archive and writing it again must reproduce
 * it. Runs only when {@code -Dortho.iree.tools=DIR} (or {@code IREE_TOOLS_DIR}) names a directory
 * holding a built {@code iree-as-module}; skipped visibly otherwise (CI does not build IREE).
 */
class IreeAsModuleOracleTest {
    private static Path ireeAsModule() {
        String dir = System.getProperty("ortho.iree.tools", System.getenv("IREE_TOOLS_DIR"));
        if (dir == null) {
            return null;
        }
        Path tool = Path.of(dir, "iree-as-module");
        return Files.isExecutable(tool) ? tool : null;
    }

    @Test
    void conformanceModulesAreByteIdenticalToIreeAsModule() throws Exception {
        Path tool = ireeAsModule();
        assumeTrue(tool != null, "no iree-as-module (set -Dortho.iree.tools=DIR): IREE oracle comparison skipped");
        List<Path> files = ConformanceFiles.files();
        assumeTrue(!files.isEmpty(), "IREE VM conformance suite (shared/conformance/vm) not found: skipped");
        Path out = Files.createTempFile("ortho-oracle", ".vmfb");
        List<String> differences = new ArrayList<>();
        try {
            for (Path file : files) {
                Process process = new ProcessBuilder(tool.toString(), "--output=" + out, file.toString())
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
                if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                    process.destroyForcibly();
                    differences.add(file.getFileName() + ": iree-as-module failed");
                    continue;
                }
                byte[] iree = Files.readAllBytes(out);
                byte[] ortho = BytecodeArchive.write(new Assembler(ConformanceTest.EXTENSIONS).assemble(file));
                if (!Arrays.equals(iree, ortho)) {
                    int at = Arrays.mismatch(iree, ortho);
                    differences.add(file.getFileName() + ": first difference at byte " + at + " (IREE "
                            + iree.length + " bytes, Ortho " + ortho.length + ")");
                }
                if (!Arrays.equals(iree, BytecodeArchive.write(BytecodeArchive.read(iree)))) {
                    differences.add(file.getFileName() + ": read + write of IREE's archive differs");
                }
            }
        } finally {
            Files.deleteIfExists(out);
        }
        assertEquals(List.of(), differences, files.size() + " conformance files compared");
    }
}
