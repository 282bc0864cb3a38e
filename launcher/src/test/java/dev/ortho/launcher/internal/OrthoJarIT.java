package dev.ortho.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The CLI contract of the exported {@code ortho.jar}, run as a separate process. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OrthoJarIT {

    record Run(int exitCode, String out, String err) {}

    private static final String INCUBATOR_WARNING = "WARNING: Using incubator modules: jdk.incubator.vector"
            + System.lineSeparator();

    /** {@code java [ortho.jvm.flags] -jar ortho.jar args...} */
    static List<String> orthoCommand(String... args) {
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(List.of(System.getProperty("ortho.jvm.flags", "").split(" ")));
        command.addAll(List.of("-jar", System.getProperty("ortho.jar", "target/ortho.jar")));
        command.addAll(List.of(args));
        command.removeIf(String::isEmpty);
        return command;
    }

    static Run ortho(String stdin, String... args) throws IOException, InterruptedException {
        List<String> command = orthoCommand(args);
        Path out = Files.createTempFile("ortho-out", ".txt");
        Path err = Files.createTempFile("ortho-err", ".txt");
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
            if (stdin == null) {
                builder.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            }
            Process process = builder.start();
            if (stdin != null) {
                process.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
                process.getOutputStream().close();
            }
            if (!process.waitFor(50, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("ortho " + String.join(" ", args) + " did not exit");
            }
            // The JVM announces the incubator module the kernels use (--add-modules
            // jdk.incubator.vector in ortho.jvm.flags, as in ./ortho); that line is not ortho's.
            String errText = Files.readString(err).replace(INCUBATOR_WARNING, "");
            return new Run(process.exitValue(), Files.readString(out), errText);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    @Test
    void versionNamesOrthoJavaAndFelix() throws Exception {
        Run run = ortho(null, "version");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().startsWith("ortho 0.1.0"), run.out());
        assertTrue(run.out().contains("Java " + Runtime.version().feature()), run.out());
        assertTrue(run.out().contains("org.apache.felix.framework 7.0.5"), run.out());
    }

    @Test
    void helpListsSubcommandsAndFlags() throws Exception {
        Run run = ortho(null, "--help");
        assertEquals(0, run.exitCode());
        assertTrue(run.out().startsWith("Usage: ortho"), run.out());
        assertTrue(run.out().contains("--list_drivers"));
    }

    @Test
    void unknownSubcommandExitsTwoWithUsageOnStderr() throws Exception {
        Run run = ortho(null, "bogus");
        assertEquals(2, run.exitCode());
        assertEquals("", run.out());
        assertTrue(run.err().contains("ortho: unknown subcommand 'bogus'"), run.err());
        assertTrue(run.err().contains("Usage: ortho"), run.err());
    }

    @Test
    void listDriversPrintsIreesHeaderAndTheShellAgrees() throws Exception {
        Run flag = ortho(null, "--list_drivers");
        assertEquals(0, flag.exitCode(), flag.err());
        assertTrue(flag.out().startsWith("# =====") && flag.out().contains("# Available HAL drivers\n"),
                flag.out());
        String driverLines = flag.out().substring(flag.out().indexOf("\n\n") + 2);

        Run shell = ortho("hal:drivers\n");
        assertEquals(0, shell.exitCode(), shell.err());
        String expected = driverLines.isEmpty() ? "no HAL drivers are registered\n" : driverLines;
        assertEquals(expected, shell.out());
    }

    @Test
    void pipedShellRunsGogoCommandsWithoutPrompts() throws Exception {
        Run run = ortho("# comment\necho hello from gogo\nlb dev.ortho.launcher\n");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().startsWith("hello from gogo\n"), run.out());
        assertTrue(run.out().contains("Ortho launcher"), run.out());
        assertTrue(!run.out().contains("g! "), "no prompt when stdin is not a terminal");
    }

    @Test
    void pipedShellReportsAFailedCommandWithExitOne() throws Exception {
        Run run = ortho("bogus:command\necho still running\n");
        assertEquals(1, run.exitCode());
        assertTrue(run.err().contains("NOT_FOUND; command not found: bogus:command"), run.err());
        assertEquals("still running\n", run.out());
    }

    /** Issue 15: Gogo's start printed a Java exception text and the session exited 0. */
    @Test
    void pipedShellReportsGogoLifecycleFailuresAsStatusesWithExitOne() throws Exception {
        Run run = ortho("start file:/nonexistent.jar\n");
        assertEquals(1, run.exitCode(), run.err());
        assertTrue(run.err().contains("NOT_FOUND; /nonexistent.jar (No such file or directory); "
                + "start file:/nonexistent.jar\n"), run.err());
        assertEquals("", run.out());
        run = ortho("start nosuchbundle\n");
        assertEquals(1, run.exitCode(), run.err());
        assertTrue(run.err().contains("INVALID_ARGUMENT; no protocol: nosuchbundle; start nosuchbundle\n"), run.err());
        run = ortho("hal:dump\n");
        assertEquals(1, run.exitCode(), run.err());
        assertTrue(run.err().contains("INVALID_ARGUMENT; hal:dump needs a device URI"), run.err());
    }

    @Test
    void toolErrorsPrintTheStatusAndExitOne() throws Exception {
        Run run = ortho(null, "--list_devices=nope");
        assertEquals(1, run.exitCode());
        assertTrue(run.err().startsWith("NOT_FOUND; no HAL driver 'nope' is registered"), run.err());
    }

    @Test
    void shellDumpDescribesTheLocalSyncDeviceAndDumpDevicesAgrees() throws Exception {
        Run shell = ortho("hal:dump local-sync://\n");
        assertEquals(0, shell.exitCode(), shell.err());
        assertTrue(shell.out().startsWith("# ===---"), shell.out());
        assertTrue(shell.out().contains("# --device=local-sync://\n"), shell.out());
        assertTrue(shell.out().contains("  hal.executable.format :: jvm-static = 1\n"), shell.out());
        assertTrue(shell.out().contains("allocator statistics:\n  ALL: "), shell.out());

        Run flag = ortho(null, "--dump_devices=local-sync");
        assertEquals(0, flag.exitCode(), flag.err());
        assertTrue(flag.out().contains("# Enumerated devices for driver 'local-sync'\n"), flag.out());
        assertTrue(flag.out().endsWith(shell.out()), "the flag prints the same device description:\n" + flag.out());
    }

    private static final String CALC = """
            vm.module @calc version 1
            vm.export @add
            vm.func @add(%i0: i32, %i1: i32) -> (i32) {
              %i2 = vm.add.i32 %i0, %i1
              vm.return %i2
            }
            """;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS) // hang guard for four JVM launches on a loaded machine
    void asModuleRunModuleAndDumpModuleWorkThroughTheJar() throws Exception {
        Path dir = Files.createTempDirectory("ortho-vm-it");
        Path source = dir.resolve("calc.vmasm");
        Path vmfb = dir.resolve("calc.vmfb");
        Files.writeString(source, CALC);
        Run as = ortho(null, "as-module", "--output=" + vmfb, source.toString());
        assertEquals(0, as.exitCode(), as.err());
        Run run = ortho(null, "run-module", "--module=" + vmfb, "--function=add", "--input=2", "--input=3");
        assertEquals(0, run.exitCode(), run.err());
        assertEquals("EXEC @add\nresult[0]: i32=5\n", run.out());
        Run traced = ortho(null, "run-module", "--module=" + vmfb, "--function=add", "--input=2", "--input=3",
                "--trace_execution");
        assertEquals(0, traced.exitCode(), traced.err());
        assertTrue(traced.err().contains("calc.add+") && traced.err().contains("vm.add.i32"),
                "--trace_execution logs each instruction to stderr: " + traced.err());
        Run dump = ortho(null, "dump-module", "--output=disassembly", vmfb.toString());
        assertEquals(0, dump.exitCode(), dump.err());
        assertTrue(dump.out().startsWith("vm.module @calc version 1\n"), dump.out());
        Run gogo = ortho("vm:load --vm_compile=eager " + vmfb + "\nvm:invoke calc.add 40 2\n");
        assertEquals(0, gogo.exitCode(), gogo.err());
        assertTrue(gogo.out().contains("loaded module 'calc' version 1 (vm_compile=eager)"), gogo.out());
        assertTrue(gogo.out().contains("EXEC @add\nresult[0]: i32=42"), gogo.out());
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS) // hang guard for five JVM launches on a loaded machine
    void checkModuleRunsConformanceFilesThroughTheJar() throws Exception {
        Path dir = VmToolsTest.conformanceDirectory();
        org.junit.jupiter.api.Assumptions.assumeTrue(dir != null,
                "IREE VM conformance suite (shared/conformance/vm) not found: skipped");
        for (String file : List.of("control_flow_ops.vmasm", "call_ops.vmasm", "arithmetic_ops_f32.vmasm",
                "conversion_ops_f64.vmasm", "async_ops.vmasm")) {
            Run run = ortho(null, "check-module", dir.resolve(file).toString());
            assertEquals(0, run.exitCode(), run.out() + run.err());
            assertTrue(run.out().matches("(?s).*\\n[1-9][0-9]* passed, 0 failed\\n"), run.out());
        }
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS) // hang guard for three JVM launches on a loaded machine
    void runModuleRunsAHalProgramWithBufferViewsThroughTheJar() throws Exception {
        Path dir = Files.createTempDirectory("ortho-hal-it");
        Path program = HalPrograms.mulProgram(dir);
        Run run = ortho(null, "run-module", "--module=" + program, "--function=mul",
                "--device=validation+local-sync", "--input=2x2xf32=1 2 3 4", "--input=2x2xf32=[[10 20][30 40]]");
        assertEquals(0, run.exitCode(), run.err());
        assertEquals("EXEC @mul\nresult[0]: hal.buffer_view\n2x2xf32=[10 40][90 160]\n", run.out());
        Run expected = ortho(null, "run-module", "--module=" + program, "--function=mul_async",
                "--input=2x2xf32=1 2 3 4", "--input=2x2xf32=2", "--expected_output=2x2xf32=2 4 6 9");
        assertEquals(1, expected.exitCode(), expected.out() + expected.err());
        assertTrue(expected.out().contains("[FAILED] result[0]: element at index 3 (8) does not match the expected (9)"),
                expected.out());
        Run gogo = ortho("vm:load " + program + "\nvm:invoke mul_program.mul \"2x2xf32=[[1 2][3 4]]\" \"2x2xf32=3\"\n");
        assertEquals(0, gogo.exitCode(), gogo.err());
        assertTrue(gogo.out().contains("EXEC @mul\nresult[0]: hal.buffer_view\n2x2xf32=[3 6][9 12]"), gogo.out());
    }

    /** The corpus of modules compiled by iree-compile ({@code models/}, see its README). */
    private static final Path MODELS = Path.of("..", "models").toAbsolutePath().normalize();

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS) // hang guard for JVM launches on a loaded machine
    void ireeCompiledModulesRunThroughTheJarWithIreesFlags() throws Exception {
        // The commands of the README's "Running a model compiled by IREE", as iree-run-module takes them.
        Run cnn = ortho(null, "run-module", "--device=local-task",
                "--module=" + MODELS.resolve("vmfb/cnn.vmvx-ukernels-dt.vmfb"), "--function=cnn",
                "--input=@" + MODELS.resolve("data/cnn/b1/input0.npy"),
                "--expected_output=@" + MODELS.resolve("data/cnn/b1/vmvx-ukernels-dt/local-task/output0.npy"),
                "--expected_f32_threshold=1e-05", "--expected_rtol=1e-05");
        assertEquals(0, cnn.exitCode(), cnn.out() + cnn.err());
        assertEquals("EXEC @cnn\n[SUCCESS] all function outputs matched their expected values.\n", cnn.out());
        // Externalized weights through the io_parameters module, IREE's --parameters spelling.
        Run params = ortho(null, "run-module", "--device=local-sync",
                "--module=" + MODELS.resolve("vmfb/mlp_params.vmvx.vmfb"), "--function=mlp",
                "--parameters=model=" + MODELS.resolve("params/mlp_params.irpa"),
                "--input=@" + MODELS.resolve("data/mlp_params/b1/input0.npy"),
                "--expected_output=@" + MODELS.resolve("data/mlp_params/b1/vmvx/local-sync/output0.npy"),
                "--expected_f32_threshold=1e-05", "--expected_rtol=1e-05");
        assertEquals(0, params.exitCode(), params.out() + params.err());
        assertTrue(params.out().endsWith("[SUCCESS] all function outputs matched their expected values.\n"),
                params.out());
        // What iree-dump-module prints, byte for byte (its output for this file is committed).
        Run dump = ortho(null, "dump-module", MODELS.resolve("vmfb/cnn.vmvx-ukernels-dt.vmfb").toString());
        assertEquals(0, dump.exitCode(), dump.err());
        assertEquals(Files.readString(MODELS.resolve("dump/cnn.vmvx-ukernels-dt.txt")), dump.out());
    }

    /** The committed MLP example ({@code examples/mlp.vmasm}, next to this module). */
    private static final Path MLP = Path.of("..", "examples", "mlp.vmasm").toAbsolutePath().normalize();
    private static final String MLP_INPUT = "--input=1x784xf32=0.5";

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS) // hang guard for three JVM launches on a loaded machine
    void runModuleOnARemoteDeviceServedByServeDeviceMatchesLocal() throws Exception {
        Path dir = Files.createTempDirectory("ortho-remote-it");
        Path token = dir.resolve("token.txt");
        Files.writeString(token, "it-token-" + System.nanoTime() + "\n");
        Run local = ortho(null, "run-module", "--module=" + MLP, "--function=predict", "--device=local-task",
                MLP_INPUT);
        assertEquals(0, local.exitCode(), local.err());
        assertTrue(local.out().startsWith("EXEC @predict\nresult[0]: hal.buffer_view\n1x10xf32="), local.out());

        Path serverErr = dir.resolve("server-err.txt");
        Process server = new ProcessBuilder(orthoCommand("serve-device", "--listen=127.0.0.1:0",
                "--device=local-task", "--token_file=" + token))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectError(serverErr.toFile()).start();
        try {
            // "serving local-task on 127.0.0.1:PORT" once the socket is bound (the port is ephemeral)
            String line = new java.io.BufferedReader(new java.io.InputStreamReader(server.getInputStream(),
                    StandardCharsets.UTF_8)).readLine();
            assertTrue(line != null && line.matches("serving local-task on 127\\.0\\.0\\.1:[0-9]+"),
                    "serve-device announces its address: " + line + "\n" + Files.readString(serverErr));
            String port = line.substring(line.lastIndexOf(':') + 1);
            Run remote = ortho(null, "run-module", "--module=" + MLP, "--function=predict",
                    "--device=remote://127.0.0.1:" + port + "?token_file=" + token, MLP_INPUT);
            assertEquals(0, remote.exitCode(), remote.err());
            assertEquals(local.out(), remote.out(), "the remote device prints exactly the local results");

            Path wrong = dir.resolve("wrong-token.txt");
            Files.writeString(wrong, "not-the-token\n");
            Run wrongToken = ortho(null, "run-module", "--module=" + MLP, "--function=predict",
                    "--device=remote://127.0.0.1:" + port + "?token_file=" + wrong, MLP_INPUT);
            assertEquals(1, wrongToken.exitCode(), wrongToken.out());
            assertTrue(wrongToken.err().startsWith("UNAUTHENTICATED"), wrongToken.err());
            assertTrue(server.isAlive(), "the server keeps serving after a client with a wrong token");
        } finally {
            server.destroy();
            if (!server.waitFor(30, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS) // hang guard for JVM launches (and a worker JVM) on a loaded machine
    void runModuleOnASharedMemoryWorkerOfTheJarMatchesLocal() throws Exception {
        Run local = ortho(null, "run-module", "--module=" + MLP, "--function=predict", "--device=local-task",
                MLP_INPUT);
        assertEquals(0, local.exitCode(), local.err());
        // the worker is a child 'java -jar ortho.jar shm-worker ...' serving local-task over the mailbox
        Run shm = ortho(null, "run-module", "--module=" + MLP, "--function=predict",
                "--device=remote://shm?device=local-task&mode=process", MLP_INPUT);
        assertEquals(0, shm.exitCode(), shm.err());
        assertEquals(local.out(), shm.out(), "the shared-memory device prints exactly the local results");

        Run plainSupplier = ortho(null, "run-module", "--module=" + MLP, "--function=predict",
                "--device=remote://shm?device=local-task&mode=thread", MLP_INPUT);
        assertEquals(1, plainSupplier.exitCode(), plainSupplier.out());
        assertTrue(plainSupplier.err().startsWith("INVALID_ARGUMENT") && plainSupplier.err().contains("mode=process"),
                plainSupplier.err());
    }
}
