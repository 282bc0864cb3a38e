package dev.ortho.bench.remote;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Where a TCP round trip's CPU goes, per thread kind: runs {@code remote-fill} round trips with
 * each reader ({@code tcp_reader=blocking}, the default, and {@code selector}) and the raw ping-pong, alternating
 * in rounds, and prints the median wall time per round trip and the CPU time per round trip of
 * the calling thread, the I/O loop threads ({@code ortho-remote-io-*}: the server's, and the
 * client's loop), the client's reader thread ({@code ortho-remote-rx-*}), the raw peer's echo
 * thread, and the whole process.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.ortho.bench.remote.RemoteRoundTripCpu 20 5000
 * </pre>
 */
public final class RemoteRoundTripCpu {
    private RemoteRoundTripCpu() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        int perRound = args.length > 1 ? Integer.parseInt(args[1]) : 5000;
        String[] impls = {"remote-fill", "remote-fill-selector", "raw-tcp"};
        RemoteRoundTripBenchmark[] sides = new RemoteRoundTripBenchmark[impls.length];
        for (int i = 0; i < impls.length; i++) {
            sides[i] = new RemoteRoundTripBenchmark();
            sides[i].impl = impls[i];
            sides[i].setUp();
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        double[][] wall = new double[impls.length][rounds];
        Map<String, double[][]> cpu = new LinkedHashMap<>();
        for (String kind : new String[] {"caller", "io-loops", "client-rx", "raw-echo", "process"}) {
            cpu.put(kind, new double[impls.length][rounds]);
        }
        for (int r = -rounds / 4; r < rounds; r++) {
            for (int i = 0; i < impls.length; i++) {
                Map<String, Long> before = byKind(threads);
                long process = os.getProcessCpuTime();
                long t0 = System.nanoTime();
                for (int k = 0; k < perRound; k++) {
                    sides[i].roundTrip();
                }
                long t = System.nanoTime() - t0;
                Map<String, Long> after = byKind(threads);
                long processAfter = os.getProcessCpuTime();
                if (r < 0) {
                    continue;
                }
                wall[i][r] = t / (double) perRound;
                for (String kind : cpu.keySet()) {
                    long d = kind.equals("process") ? processAfter - process
                            : after.getOrDefault(kind, 0L) - before.getOrDefault(kind, 0L);
                    cpu.get(kind)[i][r] = d / (double) perRound;
                }
            }
        }
        System.out.printf(Locale.ROOT, "rounds=%d x %d round trips; medians, ns per round trip%n", rounds, perRound);
        System.out.printf(Locale.ROOT, "%-22s %8s", "impl", "wall");
        for (String kind : cpu.keySet()) {
            System.out.printf(Locale.ROOT, " %10s", kind);
        }
        System.out.println();
        for (int i = 0; i < impls.length; i++) {
            System.out.printf(Locale.ROOT, "%-22s %8.0f", impls[i], median(wall[i]));
            for (double[][] kind : cpu.values()) {
                System.out.printf(Locale.ROOT, " %10.0f", median(kind[i]));
            }
            System.out.println();
        }
        for (RemoteRoundTripBenchmark side : sides) {
            side.tearDown();
        }
    }

    /** CPU nanoseconds so far per thread kind (threads that ended are not counted). */
    private static Map<String, Long> byKind(ThreadMXBean threads) {
        Map<String, Long> sums = new LinkedHashMap<>();
        long self = Thread.currentThread().threadId();
        for (long id : threads.getAllThreadIds()) {
            var info = threads.getThreadInfo(id);
            long ns = threads.getThreadCpuTime(id);
            if (info == null || ns < 0) {
                continue;
            }
            String name = info.getThreadName();
            String kind = id == self ? "caller" : name.startsWith("ortho-remote-io-") ? "io-loops"
                    : name.startsWith("ortho-remote-rx-") ? "client-rx" : name.startsWith("raw-echo") ? "raw-echo" : null;
            if (kind != null) {
                sums.merge(kind, ns, Long::sum);
            }
        }
        return sums;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
