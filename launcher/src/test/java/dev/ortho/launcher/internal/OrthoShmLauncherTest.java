package dev.ortho.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line of {@code remote://shm?device=URI} workers under {@code java -jar ortho.jar}. */
class OrthoShmLauncherTest {
    @Test
    void childRunsTheSameJarWithThisJvmsOptionsButNoDebugger(@TempDir Path dir) throws Exception {
        Path jar = Files.createFile(dir.resolve("ortho.jar"));
        List<String> command = OrthoShmLauncher.command(jar.toString(), List.of("--add-modules", "jdk.incubator.vector",
                "-agentlib:jdwp=transport=dt_socket,server=y,address=5005", "-Dx=1"), dir.resolve("mailbox-1"), 4096,
                "local-task");
        assertEquals(List.of("--add-modules", "jdk.incubator.vector", "-Dx=1", "-jar", jar.toString(), "shm-worker",
                dir.resolve("mailbox-1").toString(), "4096", "local-task"), command.subList(1, command.size()));
    }

    @Test
    void aJvmNotStartedFromTheJarCannotStartWorkers(@TempDir Path dir) {
        for (String classPath : List.of("", dir.resolve("missing.jar").toString(), dir.toString(),
                dir.resolve("a.jar") + File.pathSeparator + dir.resolve("b.jar"))) {
            StatusException e = assertThrows(StatusException.class,
                    () -> OrthoShmLauncher.command(classPath, List.of(), dir.resolve("m"), 4096, "local-task"));
            assertEquals(StatusCode.UNAVAILABLE, e.code());
            assertTrue(e.getMessage().contains("java -jar ortho.jar") && e.getMessage().contains(classPath),
                    e.getMessage());
        }
    }

    @Test
    void theWorkerSubcommandIsHiddenAndChecksItsArguments() {
        var out = new java.io.ByteArrayOutputStream();
        var err = new java.io.ByteArrayOutputStream();
        Cli cli = new Cli(new dev.ortho.hal.DriverRegistry(), "ortho test", () -> 0);
        int code = cli.run(new String[] {"--help"}, new java.io.PrintStream(out, true), new java.io.PrintStream(err, true));
        assertEquals(Cli.EXIT_OK, code);
        assertTrue(!out.toString().contains("shm-worker"), out.toString());
        code = cli.run(new String[] {"shm-worker", "/tmp/m", "lots", "local-task"}, new java.io.PrintStream(out, true),
                new java.io.PrintStream(err, true));
        assertEquals(Cli.EXIT_USAGE, code);
        assertTrue(err.toString().contains("usage: ortho shm-worker MAILBOX_FILE CAPACITY DEVICE_URI"), err.toString());
    }
}
