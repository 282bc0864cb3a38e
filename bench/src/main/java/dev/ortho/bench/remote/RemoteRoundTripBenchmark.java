package dev.ortho.bench.remote;

import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Latency of one queue operation through the remote HAL over loopback TCP, submit to host wait
 * returning, against a raw TCP ping-pong of the same sizes in the same run.
 *
 * <ul>
 *   <li>{@code remote-fill}: a 4-byte {@code queueFill} signalling a semaphore, then a host
 *       wait on it: request frame (84 B) out, signal notification (38 B) back, served by a
 *       local-sync device. The smallest operation that must cross the wire. Default options:
 *       the waiting thread blocks in the socket's read ({@code tcp_reader=blocking}, the default).
 *   <li>{@code remote-fill-selector}: the same with {@code tcp_reader=selector}: the waiting
 *       thread blocks in a selector, then reads.
 *   <li>{@code remote-barrier}: an empty {@code queueBarrier} + signal. Its waits are reached,
 *       so the client completes it locally: only the one-way host signal (45 B) goes out.
 *   <li>{@code shm-fill} / {@code shm-thread-fill}: the same 4-byte fill over the
 *       shared-memory mailbox to a pre-spawned child JVM (PROCESS) or an in-process worker
 *       (THREAD).
 *   <li>{@code raw-tcp}: 84 B out, 38 B back on blocking channels (the floor).
 *   <li>{@code raw-tcp-spin}: the same with both ends polling for up to 50 µs before they block, as
 *       the remote transport does (issue 18: on a VM whose idle vCPU halts at once, the fair
 *       peer of a spinning remote round trip).
 *   <li>{@code raw-tcp-selector-echo}: the same with the echo waiting in a selector, then reading
 *       (as the device server's I/O thread does): what a blocking server read could save.
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RemoteRoundTripBenchmark {
    @Param({"remote-fill", "remote-fill-selector", "remote-barrier", "shm-fill", "shm-thread-fill", "raw-tcp", "raw-tcp-spin",
            "raw-tcp-selector-echo"})
    public String impl;

    private RemoteFixture fixture;
    private Device device;
    private Semaphore semaphore;
    private Buffer buffer;
    private SemaphoreList[] signals;
    private int next;
    private long value;
    private RawPingPong raw;

    @Setup(Level.Trial)
    public void setUp() {
        if (impl.startsWith("raw-tcp")) {
            raw = new RawPingPong(84, 38, impl.equals("raw-tcp-selector-echo"), impl.equals("raw-tcp-spin"));
            return;
        }
        fixture = new RemoteFixture();
        device = switch (impl) {
            case "shm-fill" -> fixture.connectShm("process");
            case "shm-thread-fill" -> fixture.connectShm("thread");
            case "remote-fill-selector" -> fixture.connect("&tcp_reader=selector");
            default -> fixture.connect();
        };
        semaphore = device.createSemaphore(0);
        buffer = device.allocator().allocateBuffer(BufferParams.deviceLocal(), 64);
    }

    @Benchmark
    public long roundTrip() throws IOException {
        if (raw != null) {
            raw.roundTrip();
            return 0;
        }
        long target = ++value;
        SemaphoreList signal = SemaphoreList.of(semaphore, target);
        if (impl.contains("fill")) {
            device.queueFill(-1, SemaphoreList.empty(), signal, buffer, 0, 4, 7, 4, 0);
        } else {
            device.queueBarrier(-1, SemaphoreList.empty(), signal, 0);
        }
        semaphore.await(target, Timeout.infinite());
        return target;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        if (raw != null) {
            raw.close();
            return;
        }
        buffer.release();
        semaphore.release();
        device.close();
        fixture.close();
    }
}
