package dev.ortho.bench.remote;

import dev.ortho.bench.task.InterleavedRun;
import dev.ortho.bench.task.InterleavedRun.Side;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The remote benchmarks on a loaded machine: the remote HAL and its peer in alternating rounds
 * in one JVM ({@link InterleavedRun#compare}), so load that comes and goes hits both alike.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.ortho.bench.remote.RemoteInterleavedRun rt 300
 * java -cp bench/target/benchmarks.jar dev.ortho.bench.remote.RemoteInterleavedRun rt-server 1000
 * java -cp bench/target/benchmarks.jar dev.ortho.bench.remote.RemoteInterleavedRun pipelined 300
 * java -cp bench/target/benchmarks.jar dev.ortho.bench.remote.RemoteInterleavedRun bulk 40
 * java -cp bench/target/benchmarks.jar dev.ortho.bench.remote.RemoteInterleavedRun bulk-native 40
 * java -cp bench/target/benchmarks.jar dev.ortho.bench.remote.RemoteInterleavedRun bulk-native 40 '&amp;tcp_reader=selector'
 * java -cp bench/target/benchmarks.jar dev.ortho.bench.remote.RemoteInterleavedRun shm 20000
 * </pre>
 *
 * {@code rt}: {@code remote-fill} round trips (the default blocking reader, and {@code remote-fill-selector})
 * against the raw TCP ping-pong and the same ping-pong with both ends spinning before they block
 * ({@code raw-tcp-spin}, as the remote transport does; 100 per round); {@code rt-server}: {@code remote-fill} against the
 * raw ping-pong with its echo blocking in {@code read} and with its echo waiting in a selector
 * ({@code raw-tcp-selector-echo}: the difference is what a blocking server read could save);
 * {@code pipelined}: 64 pipelined remote dispatches against local-sync in process; {@code bulk}:
 * 16 MiB write + read (from and into a {@code byte[]}; {@code bulk-native}: off-heap memory, as
 * the peer's) against raw socket streaming (direct buffers; for {@code bulk} also from and into a
 * {@code byte[]}, 256 KiB per socket call: {@code raw-socket-heap}); a third argument adds URI
 * parameters to the remote device of {@code pipelined} and {@code bulk*}; {@code shm}: single shared-memory round trips
 * ({@code shm-fill}, child JVM), each timed, printed as percentiles (no peer); with
 * {@code -Dortho.shm.waitlog=DIR} also each round trip's start and end, in {@code DIR/roundtrips-PID.txt}
 * (beside the transport's wait logs, see bench/README.md).
 */
public final class RemoteInterleavedRun {
    private static final int ROUND_TRIPS = 100;

    private RemoteInterleavedRun() {
    }

    public static void main(String[] args) throws Exception {
        String which = args.length > 0 ? args[0] : "rt";
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 300;
        List<Side> sides = new ArrayList<>();
        switch (which) {
            case "rt", "rt-server" -> {
                String[] impls = which.equals("rt") ? new String[] {"remote-fill", "remote-fill-selector", "raw-tcp", "raw-tcp-spin"}
                        : new String[] {"remote-fill", "raw-tcp", "raw-tcp-selector-echo"};
                for (String impl : impls) {
                    RemoteRoundTripBenchmark b = new RemoteRoundTripBenchmark();
                    b.impl = impl;
                    b.setUp();
                    sides.add(new Side(impl.startsWith("raw-tcp") ? impl : "ortho-" + impl, () -> { // ortho-*: ratios printed
                        for (int i = 0; i < ROUND_TRIPS; i++) {
                            b.roundTrip();
                        }
                    }, ROUND_TRIPS, b::tearDown));
                }
            }
            case "pipelined", "bulk", "bulk-native" -> {
                for (String impl : new String[] {"remote", "local"}) {
                    RemoteThroughputBenchmark b = new RemoteThroughputBenchmark();
                    b.impl = impl;
                    b.host = which.equals("bulk-native") ? "native" : "heap";
                    b.uriParams = args.length > 2 ? args[2] : ""; // e.g. "&tcp_reader=selector"
                    b.setUp();
                    sides.add(which.startsWith("bulk") ? new Side(impl.equals("local") ? "raw-socket" : "ortho-" + impl,
                            b::bulkTransfer, 1, impl.equals("local") && which.equals("bulk") ? () -> { } : b::tearDown)
                            : new Side(impl.equals("local") ? impl : "ortho-" + impl, b::pipelinedDispatches, 64,
                                    b::tearDown));
                    if (impl.equals("local") && which.equals("bulk")) {
                        // the same raw socket streaming from and into a byte[], as ortho's host memory here
                        sides.add(new Side("raw-socket-heap", b::bulkTransferRawHeap, 1, b::tearDown));
                    }
                }
            }
            case "shm" -> {
                shm(rounds);
                return;
            }
            default -> throw new IllegalArgumentException("unknown benchmark " + which + " (rt, rt-server, pipelined, bulk, bulk-native, shm)");
        }
        InterleavedRun.compare(which, sides, rounds);
    }

    /** Percentiles of single shared-memory round trips (child JVM), after a fifth as many of warm-up. */
    private static void shm(int count) throws Exception {
        RemoteRoundTripBenchmark b = new RemoteRoundTripBenchmark();
        b.impl = "shm-fill";
        b.setUp();
        try {
            long[] ns = new long[count];
            long[] starts = new long[count];
            for (int i = -count / 5; i < count; i++) {
                long t0 = System.nanoTime();
                b.roundTrip();
                long t = System.nanoTime() - t0;
                if (i >= 0) {
                    ns[i] = t;
                    starts[i] = t0;
                }
            }
            String waitLog = System.getProperty("ortho.shm.waitlog");
            if (waitLog != null && !waitLog.isEmpty()) { // each round trip's start and end beside the transport's wait log
                java.nio.file.Path file = java.nio.file.Path.of(waitLog, "roundtrips-" + ProcessHandle.current().pid() + ".txt");
                try (java.io.PrintWriter out = new java.io.PrintWriter(java.nio.file.Files.newBufferedWriter(file))) {
                    for (int i = 0; i < count; i++) {
                        out.println(starts[i] + " " + (starts[i] + ns[i]));
                    }
                }
            }
            Arrays.sort(ns);
            System.out.printf(Locale.ROOT, "shm-fill round trips=%d: p50 %.1f us, p90 %.1f us, p99 %.1f us,"
                    + " p99.9 %.1f us, max %.1f us%n", count, ns[count / 2] / 1e3, ns[count * 9 / 10] / 1e3,
                    ns[count * 99 / 100] / 1e3, ns[(int) (count * 999L / 1000)] / 1e3, ns[count - 1] / 1e3);
        } finally {
            b.tearDown();
        }
    }
}
