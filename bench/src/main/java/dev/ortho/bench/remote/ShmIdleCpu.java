package dev.ortho.bench.remote;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * What an idle shared-memory connection costs: opens a {@code shm-fill} device (child JVM), runs
 * {@code warm} round trips, then does nothing for {@code seconds} and prints the CPU time the
 * client process, the worker process, and the transport's pump threads ({@code ortho-remote-shm-*},
 * both sides) used per second of that idle time (Linux {@code /proc}; clock ticks of 10 ms).
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp bench/target/benchmarks.jar dev.ortho.bench.remote.ShmIdleCpu 10 20000
 * </pre>
 */
public final class ShmIdleCpu {
    private static final double TICK_MS = 10; // USER_HZ = 100 on Linux

    private ShmIdleCpu() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int warm = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        RemoteRoundTripBenchmark b = new RemoteRoundTripBenchmark();
        b.impl = "shm-fill";
        b.setUp();
        try {
            for (int i = 0; i < warm; i++) {
                b.roundTrip();
            }
            Thread.sleep(500); // the windows run out: from here on nothing is asked of the connection
            long self = ProcessHandle.current().pid();
            List<Long> children = ProcessHandle.current().children().map(ProcessHandle::pid).toList();
            long[] before = ticks(self, children);
            long t0 = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            double s = (System.nanoTime() - t0) / 1e9;
            long[] after = ticks(self, children);
            System.out.printf(Locale.ROOT, "idle shm connection, %.1f s: CPU ms per second: client process %.2f,"
                    + " worker process(es) %.2f, client pump %.2f, worker pump %.2f%n", s,
                    (after[0] - before[0]) * TICK_MS / s, (after[1] - before[1]) * TICK_MS / s,
                    (after[2] - before[2]) * TICK_MS / s, (after[3] - before[3]) * TICK_MS / s);
        } finally {
            b.tearDown();
        }
    }

    /** utime + stime ticks: {client process, children, client's pump threads, children's pump threads}. */
    private static long[] ticks(long self, List<Long> children) throws IOException {
        long[] t = {process(self), 0, pumps(self), 0};
        for (long child : children) {
            t[1] += process(child);
            t[3] += pumps(child);
        }
        return t;
    }

    private static long process(long pid) throws IOException {
        return stat(Path.of("/proc/" + pid + "/stat"));
    }

    private static long pumps(long pid) throws IOException {
        long sum = 0;
        try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    if (Files.readString(task.resolve("comm")).startsWith("ortho-remote-sh")) {
                        sum += stat(task.resolve("stat"));
                    }
                } catch (IOException gone) {
                    // the thread ended meanwhile
                }
            }
        }
        return sum;
    }

    /** utime + stime of a /proc stat line (fields 14 and 15, after the command in parentheses). */
    private static long stat(Path file) throws IOException {
        String line = Files.readString(file);
        String[] f = line.substring(line.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }
}
