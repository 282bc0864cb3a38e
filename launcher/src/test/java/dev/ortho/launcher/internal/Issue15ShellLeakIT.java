package dev.ortho.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 15 §3 through the shell of the exported {@code ortho.jar}: 200 {@code vm:invoke}s of the
 * examples on {@code local-task} (a device per call) leave the process with the worker threads
 * and file descriptors it had before them. Each live {@code local-task} device holds worker
 * threads, so the thread count also shows live devices. Linux only (reads {@code /proc/PID}).
 * The MLP used to leave two {@code ortho-worker} threads per call.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class Issue15ShellLeakIT {
    private static final int ROUNDS = 100; // each runs mlp.predict and simple_mul.simple_mul
    private static final long WAIT_NANOS = 120_000_000_000L;

    @Test
    void twoHundredVmInvokesInTheShellLeaveNoThreadsOrDescriptors() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "needs Linux /proc");
        Process shell = new ProcessBuilder(OrthoJarIT.orthoCommand())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = Thread.ofPlatform().daemon().name("shell-output").start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(shell.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lines.add(line);
                }
            } catch (IOException e) {
                lines.add("<output failed: " + e + ">");
            }
        });
        try (Writer commands = new java.io.OutputStreamWriter(shell.getOutputStream(), StandardCharsets.UTF_8)) {
            commands.write("vm:load ../examples/mlp.vmasm\nvm:load ../examples/simple_mul.vmasm\n");
            writeRound(commands); // warm-up: classes, bundles' jars, the JIT
            commands.write("echo baseline\n");
            commands.flush();
            assertEquals(2, awaitLine(lines, "baseline"), "warm-up results");

            long pid = shell.pid();
            long workersBefore = workerThreads(pid);
            long descriptorsBefore = descriptors(pid);
            for (int i = 0; i < ROUNDS; i++) {
                writeRound(commands);
            }
            commands.write("echo done\n");
            commands.flush();
            assertEquals(2 * ROUNDS, awaitLine(lines, "done"), "results of the vm:invoke commands");

            awaitAtMost("ortho-worker threads of the shell process", () -> workerThreads(pid), workersBefore);
            // A little slack for descriptors the JVM opens on its own; a leak per call would be 200.
            awaitAtMost("open file descriptors of the shell process", () -> descriptors(pid), descriptorsBefore + 8);
        } finally {
            if (!shell.waitFor(30, TimeUnit.SECONDS)) {
                shell.destroyForcibly();
            }
            reader.join(10_000);
        }
        assertEquals(0, shell.exitValue());
    }

    private static void writeRound(Writer commands) throws IOException {
        commands.write("vm:invoke mlp.predict 1x784xf32=0.5\n");
        commands.write("vm:invoke simple_mul.simple_mul \"4xf32=1 2 3 4\" \"4xf32=2\"\n");
    }

    /** Reads lines until {@code marker}; returns how many {@code result[0]: hal.buffer_view} lines came. */
    private static int awaitLine(BlockingQueue<String> lines, String marker) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT_NANOS;
        int results = 0;
        while (true) {
            String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError("the shell did not print '" + marker + "' in time");
            }
            if (line.equals(marker)) {
                return results;
            }
            if (line.equals("result[0]: hal.buffer_view")) {
                results++;
            }
        }
    }

    /** Threads of process {@code pid} named {@code ortho-worker-N} (from /proc/PID/task/TID/comm). */
    private static long workerThreads(long pid) throws IOException {
        long count = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    if (Files.readString(task.resolve("comm")).startsWith("ortho-worker-")) {
                        count++;
                    }
                } catch (IOException e) {
                    // the thread exited while listing
                }
            }
        }
        return count;
    }

    private static long descriptors(long pid) throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/" + pid + "/fd"))) {
            return fds.count();
        }
    }

    private interface Measure {
        long get() throws IOException;
    }

    private static void awaitAtMost(String what, Measure measure, long limit) throws Exception {
        long deadline = System.nanoTime() + WAIT_NANOS / 4;
        long last = measure.get();
        while (last > limit) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(what + ": " + last + " now, expected at most " + limit);
            }
            Thread.sleep(50);
            last = measure.get();
        }
        assertTrue(last >= 0);
    }
}
