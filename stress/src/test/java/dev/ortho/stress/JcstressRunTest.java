package dev.ortho.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Runs every jcstress test of this module in a child JVM, as {@code ./mvnw verify} does: with
 * the arguments of the {@code jcstress.args} property (set in stress/pom.xml; the long run is
 * in README.md, "Concurrency tests (jcstress)"). jcstress exits non-zero when any test shows a FORBIDDEN
 * outcome (or fails or errs); its report is printed here and kept in
 * {@code stress/target/jcstress-results}.
 */
class JcstressRunTest {

    @Test
    void everyStressTestShowsOnlyAcceptableOutcomes() throws IOException, InterruptedException {
        Path results = Path.of("target", "jcstress-results");
        Files.createDirectories(results);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        String flags = System.getProperty("jcstress.jvmFlags", "");
        command.addAll(split(flags));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("org.openjdk.jcstress.Main");
        command.addAll(split(System.getProperty("jcstress.args", "-m quick")));
        // One VM mode (these flags, default tiered compilation) instead of jcstress's four
        // (interpreter, C1, C2, C2 with stress flags); empty = auto-detect all of them.
        String vm = System.getProperty("jcstress.jvmArgs", "");
        if (!vm.isBlank()) {
            command.add("-jvmArgs");
            command.add(vm.trim());
        }
        command.add("-r");
        command.add(results.toAbsolutePath().toString());
        // run in target/: jcstress writes its result blob into the working directory
        Process jcstress = new ProcessBuilder(command).directory(Path.of("target").toFile()).redirectErrorStream(true)
                .redirectOutput(results.resolve("console.txt").toFile()).start();
        int exit = jcstress.waitFor();
        String console = Files.readString(results.resolve("console.txt"), StandardCharsets.UTF_8);
        System.out.println(console);
        assertEquals(0, exit, "jcstress reported failures (FORBIDDEN outcomes, errors): see the report above");
        assertTrue(console.contains("RUN RESULTS:"), "jcstress printed no results");
    }

    private static List<String> split(String s) {
        return s.isBlank() ? List.of() : Arrays.asList(s.trim().split("\\s+"));
    }
}
