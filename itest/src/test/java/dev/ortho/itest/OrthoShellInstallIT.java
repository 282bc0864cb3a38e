package dev.ortho.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.Test;

/**
 * The README's walkthrough, for real: the {@code ortho} launcher's shell installs a driver bundle
 * into the running framework, {@code hal:drivers} lists it at once, and it goes away when the
 * bundle is uninstalled. Runs {@code ortho.jar} as a child process (no Pax Exam), so the failsafe
 * execution for Felix runs it and the Equinox execution skips it.
 */
public class OrthoShellInstallIT {

    @Test(timeout = 60_000)
    public void shellInstallsListsAndUninstallsADriverBundle() throws Exception {
        File sample = new File(System.getProperty("it.sample.bundle", "target/itest-0.1.0-SNAPSHOT.jar"));
        assertTrue("sample driver bundle not built: " + sample, sample.isFile());
        String script = String.join("\n",
                "hal:drivers",
                "echo ---installed---",
                "start " + sample.toURI(),
                "hal:drivers",
                "hal:devices sample",
                "echo ---uninstalled---",
                "uninstall dev.ortho.itest.sampledriver",
                "hal:drivers",
                "");
        String out = runOrtho(script);
        String before = out.substring(0, out.indexOf("---installed---"));
        String installed = out.substring(out.indexOf("---installed---"), out.indexOf("---uninstalled---"));
        String after = out.substring(out.indexOf("---uninstalled---"));
        assertFalse(before, before.contains("sample:"));
        assertTrue(installed, installed.contains("          sample: Sample driver installed at runtime"));
        assertTrue(installed, installed.contains("sample://0"));
        assertFalse(after, after.contains("sample:"));
    }

    private static String runOrtho(String stdin) throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow(IllegalStateException::new);
        File launcherTarget = new File(System.getProperty("it.bundles.dir")).getParentFile().getParentFile();
        List<String> command = new ArrayList<>();
        command.add(java);
        command.add("--sun-misc-unsafe-memory-access=allow");
        command.add("-Djava.util.logging.config.file=" + new File(launcherTarget, "../../scripts/logging.properties"));
        command.add("-jar");
        command.add(new File(launcherTarget, "ortho.jar").getPath());
        Path out = Files.createTempFile("ortho-shell", ".out");
        Path err = Files.createTempFile("ortho-shell", ".err");
        try {
            Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            process.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
            process.getOutputStream().close();
            assertTrue("ortho did not exit", process.waitFor(50, TimeUnit.SECONDS));
            String stderr = Files.readString(err);
            assertEquals("stderr: " + stderr, 0, process.exitValue());
            return Files.readString(out);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
