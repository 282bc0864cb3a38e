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
 * both sides) used per second of that idle time (Linux {@code /proc/PID/task/TID/schedstat}: the
 * nanoseconds each thread ran, summed over the threads alive at each end).
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp bench/target/benchmarks.jar dev.ortho.bench.remote.ShmIdleCpu 10 20000
 * </pre>
 */
public final class ShmIdleCpu {
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
            long[] before = ran(self, children);
            long t0 = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            double s = (System.nanoTime() - t0) / 1e9;
            long[] after = ran(self, children);
            System.out.printf(Locale.ROOT, "idle shm connection, %.1f s: CPU ms per second: client process %.2f,"
                    + " worker process(es) %.2f, client pump %.2f, worker pump %.2f%n", s,
                    (after[0] - before[0]) / 1e6 / s, (after[1] - before[1]) / 1e6 / s,
                    (after[2] - before[2]) / 1e6 / s, (after[3] - before[3]) / 1e6 / s);
        } finally {
            b.tearDown();
        }
    }

    /** Nanoseconds run: {client process, children, client's pump threads, children's pump threads}. */
    private static long[] ran(long self, List<Long> children) throws IOException {
        long[] t = {ran(self, false), 0, ran(self, true), 0};
        for (long child : children) {
            t[1] += ran(child, false);
            t[3] += ran(child, true);
        }
        return t;
    }

    /** Nanoseconds the threads of {@code pid} ran (only its pumps if {@code pumps}). */
    private static long ran(long pid, boolean pumps) throws IOException {
        long sum = 0;
        try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    if (!pumps || Files.readString(task.resolve("comm")).startsWith("ortho-remote-sh")) {
                        sum += Long.parseLong(Files.readString(task.resolve("schedstat")).split(" ")[0]);
                    }
                } catch (IOException gone) {
                    // the thread ended meanwhile
                }
            }
        }
        return sum;
    }
}
