package dev.ortho.bench.remote;

import dev.ortho.base.Timeout;
import dev.ortho.bench.task.InterleavedRun;
import dev.ortho.bench.task.InterleavedRun.Side;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.frontier.QueueAxes;
import dev.ortho.hal.remote.DeviceServer;
import dev.ortho.hal.remote.ServerOptions;
import dev.ortho.hal.remote.internal.client.RemoteDriver;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Issue 20 §4: a three-stage pipeline across two in-process {@code serve-device} servers over
 * loopback TCP (stage 1 a fill on A, stage 2 a fill on B after stage 1, stage 3 a copy on A after
 * stage 2; {@code local-task} devices each server with a machine index of its own), in
 * alternating rounds ({@link InterleavedRun#compare}):
 * <ul>
 *   <li>{@code ortho-relayed}: the whole pipeline is submitted at once and the client waits
 *       only for stage 3; each server's signal report (with its queue's frontier) is relayed to
 *       the other server by the client's I/O thread, whose queue imports it;
 *   <li>{@code ortho-stream}: {@value #PIPELINES} pipelines submitted back to back (each stage 1
 *       after the previous stage 3), one wait for the last;
 *   <li>{@code host-waits}: the client waits on the host for each stage before submitting the
 *       next (one host round trip per stage).
 * </ul>
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.ortho.bench.remote.RemotePipelineRun 300 [bytes]
 * </pre>
 * Prints ns per pipeline; then pairs of {@code ortho-ahead} (the pipeline submitted first with
 * stage 1 held by a host semaphore, timed from its release: the critical path alone) and
 * {@code host-waits}.
 */
public final class RemotePipelineRun {
    private static final Timeout GUARD = Timeout.of(Duration.ofSeconds(60));
    private static final int PIPELINES = 20;
    /** Machine indexes handed to the servers: each server of the process has its own. */
    private static final java.util.concurrent.atomic.AtomicInteger MACHINES = new java.util.concurrent.atomic.AtomicInteger();

    private RemotePipelineRun() {
    }

    /** Two servers, one client device on each, the pipeline's semaphores and buffers. */
    static final class Pipeline implements AutoCloseable {
        final Path token;
        final DeviceServer serverA;
        final DeviceServer serverB;
        final Device a;
        final Device b;
        final Semaphore s1;
        final Semaphore s2;
        final Semaphore s3;
        final Buffer onA;
        final Buffer copyA;
        final Buffer onB;
        final long bytes;
        long step;

        Pipeline(long bytes) {
            this.bytes = bytes;
            try {
                token = Files.createTempFile("ortho-bench-token", "");
                Files.writeString(token, "bench-token", StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            serverA = server(MACHINES.incrementAndGet());
            serverB = server(MACHINES.incrementAndGet());
            a = connect(serverA);
            b = connect(serverB);
            s1 = a.createSemaphore(0);
            s2 = b.createSemaphore(0);
            s3 = a.createSemaphore(0);
            onA = a.allocator().allocateBuffer(BufferParams.hostLocal(), bytes);
            copyA = a.allocator().allocateBuffer(BufferParams.hostLocal(), bytes);
            onB = b.allocator().allocateBuffer(BufferParams.hostLocal(), bytes);
        }

        private DeviceServer server(int machine) {
            CpuDrivers.Builder cpu = CpuDrivers.builder().workerCount(1)
                    .queueAxes(new QueueAxes(machine, machine, QueueAxes.CAPACITY));
            return DeviceServer.start(cpu::localTask, ServerOptions.defaults("bench-token".getBytes(
                    StandardCharsets.UTF_8)).withListen(new InetSocketAddress("127.0.0.1", 0), false)
                    .withMachine(machine));
        }

        private Device connect(DeviceServer server) {
            try (RemoteDriver driver = new RemoteDriver(name -> null)) {
                return driver.createDevice(DeviceUri.parse("remote://127.0.0.1:" + server.address().getPort()
                        + "?token_file=" + token));
            }
        }

        /** The whole pipeline at once; waits for stage 3 only. */
        void relayed() {
            long n = ++step;
            a.queueFill(ANY, SemaphoreList.empty(), SemaphoreList.of(s1, n), onA, 0, bytes, (int) n, 4, 0);
            b.queueFill(ANY, SemaphoreList.of(s1, n), SemaphoreList.of(s2, n), onB, 0, bytes, (int) n, 4, 0);
            a.queueCopy(ANY, SemaphoreList.of(s2, n), SemaphoreList.of(s3, n), onA, 0, copyA, 0, bytes, 0);
            s3.await(n, GUARD);
        }

        /**
         * The whole pipeline submitted first, stage 1 held by a host semaphore: returns the ns from
         * releasing it to stage 3's signal (the submission is off the critical path).
         */
        long ahead() {
            long n = ++step;
            TimelineSemaphore gate = new TimelineSemaphore("gate", 0);
            a.queueFill(ANY, SemaphoreList.of(gate, 1), SemaphoreList.of(s1, n), onA, 0, bytes, (int) n, 4, 0);
            b.queueFill(ANY, SemaphoreList.of(s1, n), SemaphoreList.of(s2, n), onB, 0, bytes, (int) n, 4, 0);
            a.queueCopy(ANY, SemaphoreList.of(s2, n), SemaphoreList.of(s3, n), onA, 0, copyA, 0, bytes, 0);
            long t0 = System.nanoTime();
            gate.signal(1);
            s3.await(n, GUARD);
            long t = System.nanoTime() - t0;
            gate.release();
            return t;
        }

        /** {@code count} pipelines submitted back to back, one wait for the last. */
        void stream(int count) {
            long first = step + 1;
            for (int i = 0; i < count; i++) {
                long n = ++step;
                a.queueFill(ANY, SemaphoreList.of(s3, n - 1), SemaphoreList.of(s1, n), onA, 0, bytes, (int) n, 4, 0);
                b.queueFill(ANY, SemaphoreList.of(s1, n), SemaphoreList.of(s2, n), onB, 0, bytes, (int) n, 4, 0);
                a.queueCopy(ANY, SemaphoreList.of(s2, n), SemaphoreList.of(s3, n), onA, 0, copyA, 0, bytes, 0);
            }
            s3.await(first + count - 1, GUARD);
        }

        /** Each stage submitted once the host saw the previous one finish. */
        void hostWaits() {
            long n = ++step;
            a.queueFill(ANY, SemaphoreList.empty(), SemaphoreList.of(s1, n), onA, 0, bytes, (int) n, 4, 0);
            s1.await(n, GUARD);
            b.queueFill(ANY, SemaphoreList.empty(), SemaphoreList.of(s2, n), onB, 0, bytes, (int) n, 4, 0);
            s2.await(n, GUARD);
            a.queueCopy(ANY, SemaphoreList.empty(), SemaphoreList.of(s3, n), onA, 0, copyA, 0, bytes, 0);
            s3.await(n, GUARD);
        }

        @Override
        public void close() {
            for (AutoCloseable c : List.<AutoCloseable>of(onA, copyA, onB, s1, s2, s3, a, b, serverA, serverB)) {
                try {
                    c.close();
                } catch (Exception ignored) {
                    // best effort
                }
            }
            try {
                Files.deleteIfExists(token);
            } catch (IOException ignored) {
                // temp file
            }
        }
    }

    private static final long ANY = Device.QUEUE_AFFINITY_ANY;

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 300;
        long bytes = args.length > 1 ? Long.parseLong(args[1]) : 4096;
        Pipeline relayed = new Pipeline(bytes);
        Pipeline stream = new Pipeline(bytes);
        Pipeline host = new Pipeline(bytes);
        InterleavedRun.compare("pipeline A->B->A bytes=" + bytes + " (per pipeline)", List.of(
                new Side("ortho-relayed", () -> {
                    for (int i = 0; i < PIPELINES; i++) {
                        relayed.relayed();
                    }
                }, PIPELINES, relayed::close),
                new Side("ortho-stream", () -> stream.stream(PIPELINES), PIPELINES, stream::close),
                new Side("host-waits", () -> {
                    for (int i = 0; i < PIPELINES; i++) {
                        host.hostWaits();
                    }
                }, PIPELINES, host::close)), rounds);
        aheadVersusHost(rounds * PIPELINES, bytes);
        System.exit(0);
    }

    /**
     * Pairs of one pipeline submitted ahead (timed from releasing stage 1) and one with host
     * waits (timed from its first submission): p25 / median / p75 ns of each and the median of
     * the per-pair ratios.
     */
    private static void aheadVersusHost(int pairs, long bytes) {
        try (Pipeline ahead = new Pipeline(bytes); Pipeline host = new Pipeline(bytes)) {
            int warm = pairs / 5;
            long[] a = new long[pairs];
            long[] h = new long[pairs];
            double[] ratio = new double[pairs];
            for (int i = -warm; i < pairs; i++) {
                long ta = ahead.ahead();
                long t0 = System.nanoTime();
                host.hostWaits();
                long th = System.nanoTime() - t0;
                if (i >= 0) {
                    a[i] = ta;
                    h[i] = th;
                    ratio[i] = ta / (double) th;
                }
            }
            java.util.Arrays.sort(a);
            java.util.Arrays.sort(h);
            java.util.Arrays.sort(ratio);
            System.out.printf(java.util.Locale.ROOT, "pairs=%d (ns: p25 / median / p75)%n"
                    + "ortho-ahead    %10d / %10d / %10d  ortho-ahead/host-waits = %.3f (p25 %.3f, p75 %.3f)%n"
                    + "host-waits     %10d / %10d / %10d%n", pairs, a[pairs / 4], a[pairs / 2], a[pairs * 3 / 4],
                    ratio[pairs / 2], ratio[pairs / 4], ratio[pairs * 3 / 4], h[pairs / 4], h[pairs / 2],
                    h[pairs * 3 / 4]);
        }
    }
}
