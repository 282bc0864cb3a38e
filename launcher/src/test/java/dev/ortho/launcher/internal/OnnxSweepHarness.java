package dev.ortho.launcher.internal;

import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.vm.Instance;
import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import dev.ortho.vm.spi.InstructionExtension;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The in-JVM runner of {@code models/sweep.py}: runs many {@code run-module} commands in one JVM, so
 * that the sweep over ONNX's node tests does not pay the JVM and framework start-up per case. Not a
 * test; {@code sweep.py} compiles it with {@code javac} against the jars inside {@code ortho.jar}.
 *
 * <p>{@code OnnxSweepHarness JOBS RESULTS SECONDS}: {@code JOBS} has one job a line, a case id and
 * the {@code ortho} arguments, tab-separated; each job appends one line to {@code RESULTS}: the id,
 * the exit code, and what the command printed to standard error (tabs, newlines and backslashes
 * escaped). No new job starts after {@code SECONDS}. A job that runs longer than two minutes is
 * recorded with exit code {@code TIMEOUT} and ends the JVM (the sweep starts a new one for the rest).
 */
final class OnnxSweepHarness {
    private OnnxSweepHarness() {
    }

    public static void main(String[] args) throws Exception {
        List<String> jobs = Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8);
        Path results = Path.of(args[1]);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Long.parseLong(args[2]));
        List<InstructionExtension> extensions = List.of(new ExtF32Extension(), new ExtF64Extension());
        DriverRegistry registry = new DriverRegistry();
        registry.register(CpuDrivers.builder().extensions(extensions).localSyncFactory());
        registry.register(CpuDrivers.builder().extensions(extensions).localTaskFactory());
        ExecutorService runner = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "sweep-job");
            t.setDaemon(true);
            return t;
        });
        try (Writer out = Files.newBufferedWriter(results, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND)) {
            for (String job : jobs) {
                if (job.isBlank()) {
                    continue;
                }
                if (System.nanoTime() > deadline) {
                    break;
                }
                String[] fields = job.split("\t");
                String[] command = Arrays.copyOfRange(fields, 1, fields.length);
                ByteArrayOutputStream stdout = new ByteArrayOutputStream();
                ByteArrayOutputStream stderr = new ByteArrayOutputStream();
                Future<Integer> exit = runner.submit(() -> {
                    Cli cli = new Cli(registry, "ortho sweep", () -> 0);
                    new VmTools(new Instance(), registry, () -> extensions,
                            () -> new ByteArrayInputStream(new byte[0])).subcommands().forEach(cli::add);
                    try {
                        return cli.run(command, new PrintStream(stdout, true, StandardCharsets.UTF_8),
                                new PrintStream(stderr, true, StandardCharsets.UTF_8));
                    } catch (Throwable t) { // recorded as the case's result: a crash is a finding
                        t.printStackTrace(new PrintStream(stderr, true, StandardCharsets.UTF_8));
                        return -1;
                    }
                });
                String code;
                try {
                    code = String.valueOf(exit.get(120, TimeUnit.SECONDS));
                } catch (TimeoutException e) {
                    code = "TIMEOUT";
                }
                out.write(fields[0] + "\t" + code + "\t" + escape(stderr.toString(StandardCharsets.UTF_8)) + "\n");
                out.flush();
                if (code.equals("TIMEOUT")) {
                    Runtime.getRuntime().halt(3);
                }
            }
        } catch (IOException e) {
            System.err.println("sweep harness: " + e);
            System.exit(2);
        }
        System.exit(0);
    }

    private static String escape(String text) {
        return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r");
    }
}
