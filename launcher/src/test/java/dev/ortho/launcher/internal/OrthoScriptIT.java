package dev.ortho.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./ortho} script's start-up cache (a JDK AOT cache beside the jar): recorded once per
 * jar, used by later runs, recorded again for a rebuilt jar, and never a reason for a different
 * output, exit code or message when it is damaged. Runs the script on a copy of the exported jar
 * ({@code ORTHO_JAR}), so the repository's own cache is left alone.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OrthoScriptIT {
    private static final String RECORDING = "ortho: recording the start-up cache";
    private static final String INCUBATOR_WARNING = "WARNING: Using incubator modules: jdk.incubator.vector";

    record Run(int exitCode, String out, String err) {}

    @TempDir
    static Path dir;
    static Path jar;
    static Path cache;
    static Run reference;

    @BeforeAll
    static void recordTheCache() throws Exception {
        jar = dir.resolve("ortho.jar");
        cache = dir.resolve("ortho.aot");
        Files.copy(Path.of(System.getProperty("ortho.jar", "target/ortho.jar")), jar);
        reference = script(Map.of("ORTHO_AOT", "off"), "--list_drivers");
        assertEquals(0, reference.exitCode(), reference.err());
        assertTrue(reference.out().contains("local-task"), reference.out());
        assertFalse(Files.exists(cache), "ORTHO_AOT=off records nothing");

        Run first = script(Map.of(), "--list_drivers");
        assertEquals(0, first.exitCode(), first.err());
        assertEquals(reference.out(), first.out());
        assertTrue(first.err().startsWith(RECORDING), first.err());
        assertTrue(Files.size(cache) > 0, "no cache at " + cache);
        assertEquals(Files.getLastModifiedTime(jar), Files.getLastModifiedTime(dir.resolve("ortho.aot.stamp")));
    }

    @Test
    @Order(1)
    void laterRunsMapTheCacheWithoutRecordingIt() throws Exception {
        // ORTHO_JAVA_OPTS come after the script's flags: class loading is logged to stdout
        Run run = script(Map.of("ORTHO_JAVA_OPTS", "-Xlog:class+load=info"), "--list_drivers");
        assertEquals(0, run.exitCode(), run.err());
        assertEquals("", run.err());
        assertTrue(run.out().contains("org.apache.felix.framework.Felix source: shared objects file"),
                "the framework's classes do not come from the cache");
        assertTrue(run.out().contains("dev.ortho.launcher.internal.OrthoMain source: shared objects file"),
                "the launcher bundle's classes do not come from the cache");
    }

    @Test
    @Order(2)
    void aDamagedCacheChangesNeitherOutputNorExitCodeNorMessages() throws Exception {
        byte[] good = Files.readAllBytes(cache);
        FileTime cacheTime = Files.getLastModifiedTime(cache);
        byte[] flipped = good.clone(); // damage inside the mapped regions: without a checksum the JVM crashes
        for (int offset = good.length / 30; offset < good.length; offset += good.length / 30) {
            for (int i = offset; i < Math.min(offset + 64, good.length); i++) {
                flipped[i] ^= 0x5a;
            }
        }
        byte[] garbage = new byte[1 << 20];
        new java.util.Random(19).nextBytes(garbage);
        Map<String, byte[]> damages = Map.of(
                "flipped bytes", flipped,
                "truncated", Arrays.copyOf(good, good.length / 5),
                "random bytes", garbage,
                "empty", new byte[0]);
        try {
            for (Map.Entry<String, byte[]> damage : damages.entrySet()) {
                Files.write(cache, damage.getValue());
                Run run = script(Map.of(), "--list_drivers");
                assertEquals(0, run.exitCode(), damage.getKey() + ": " + run.out() + run.err());
                assertEquals(reference.out(), run.out(), damage.getKey());
                assertEquals("", run.err(), damage.getKey());
                try (Stream<Path> files = Files.list(dir)) {
                    assertFalse(files.anyMatch(f -> f.getFileName().toString().startsWith("hs_err")),
                            damage.getKey() + ": the JVM crashed");
                }
            }
        } finally {
            Files.write(cache, good);
            Files.setLastModifiedTime(cache, cacheTime);
        }
    }

    @Test
    @Order(3)
    void aRebuiltJarGetsItsCacheRecordedAgain() throws Exception {
        // JDK 25 maps a cache recorded for an older jar at the same path without complaint; the
        // script must notice the new jar itself.
        FileTime rebuilt = FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() + 60_000);
        Files.setLastModifiedTime(jar, rebuilt);
        Run run = script(Map.of(), "--list_drivers");
        assertEquals(0, run.exitCode(), run.err());
        assertEquals(reference.out(), run.out());
        assertTrue(run.err().startsWith(RECORDING), run.err());
        assertEquals(rebuilt, Files.getLastModifiedTime(dir.resolve("ortho.aot.stamp")));

        Run again = script(Map.of(), "--list_drivers");
        assertEquals("", again.err());
    }

    /** {@code ORTHO_JAR=<copy> ./ortho args...} with the JDK running this test. */
    static Run script(Map<String, String> env, String... args) throws IOException, InterruptedException {
        Path script = Path.of("").toAbsolutePath().getParent().resolve("ortho");
        List<String> command = Stream.concat(Stream.of("bash", script.toString()), Stream.of(args)).toList();
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        try {
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectOutput(out.toFile()).redirectError(err.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .directory(dir.toFile());
            builder.environment().put("ORTHO_JAR", jar.toString());
            builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
            builder.environment().remove("ORTHO_JAVA_OPTS");
            builder.environment().remove("ORTHO_AOT");
            builder.environment().putAll(env);
            Process process = builder.start();
            if (!process.waitFor(240, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("ortho " + String.join(" ", args) + " did not exit");
            }
            String errText = Files.readString(err, StandardCharsets.UTF_8).lines()
                    .filter(line -> !line.equals(INCUBATOR_WARNING))
                    .reduce("", (a, b) -> a + b + "\n");
            return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), errText);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
