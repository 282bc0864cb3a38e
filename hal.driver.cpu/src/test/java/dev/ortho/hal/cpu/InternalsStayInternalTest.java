package dev.ortho.hal.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No Java file of the repository outside this bundle uses the driver's private packages
 * ({@code dev.ortho.hal.cpu.internal…}): tests, benchmarks, examples and the other bundles build
 * CPU devices with {@link CpuDrivers} and extend them through {@code dev.ortho.hal.cpu.kernel}
 * (issue 17 §4). One exception: {@code stress/} holds jcstress tests of package-private lock-free
 * protocols (tile claims, the MPSC queue), which sit in the driver's packages by design (see
 * stress/pom.xml).
 */
class InternalsStayInternalTest {
    private static final Pattern USE = Pattern.compile(
            "(?m)^\\s*(import\\s+(static\\s+)?|package\\s+)dev\\.ortho\\.hal\\.cpu\\.internal\\b");
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path BUNDLE = ROOT.resolve("hal.driver.cpu");
    private static final Path STRESS = ROOT.resolve("stress");

    /** The files under {@code root} whose text imports or declares a {@code dev.ortho.hal.cpu.internal} package. */
    static List<Path> offenders(Stream<Path> javaFiles) {
        List<Path> offenders = new ArrayList<>();
        javaFiles.forEach(file -> {
            try {
                if (USE.matcher(Files.readString(file)).find()) {
                    offenders.add(file);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        return offenders;
    }

    @Test
    void noFileOutsideTheBundleUsesItsInternalPackages() throws IOException {
        List<Path> scanned;
        try (Stream<Path> files = Files.walk(ROOT)) {
            scanned = files.filter(p -> p.toString().endsWith(".java") && !p.startsWith(BUNDLE) && !p.startsWith(STRESS)
                    && !p.toString().contains("/target/") && !p.toString().contains("/.")).toList();
        }
        assertTrue(scanned.size() > 200, "the scan found only " + scanned.size() + " Java files under " + ROOT);
        assertEquals(List.of(), offenders(scanned.stream()), "files outside hal.driver.cpu using its internals");
    }

    @Test
    void theScanSeesImportsStaticImportsAndPackageDeclarations(@org.junit.jupiter.api.io.TempDir Path dir)
            throws IOException {
        Path importing = Files.writeString(dir.resolve("A.java"), "package x;\nimport dev.ortho.hal.cpu.internal.task.X;\n");
        Path statics = Files.writeString(dir.resolve("B.java"), "import static dev.ortho.hal.cpu.internal.Y.z;\n");
        Path declaring = Files.writeString(dir.resolve("C.java"), "package dev.ortho.hal.cpu.internal.task;\n");
        Path clean = Files.writeString(dir.resolve("D.java"), "import dev.ortho.hal.cpu.CpuDrivers;\n// cpu.internal\n");
        assertEquals(List.of(importing, statics, declaring),
                offenders(Stream.of(importing, statics, declaring, clean)));
    }
}
