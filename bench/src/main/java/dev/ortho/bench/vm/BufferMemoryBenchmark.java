package dev.ortho.bench.vm;

import dev.ortho.base.MemoryPool;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.Allocator;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.vm.HostMemoryLimit;
import dev.ortho.vm.VmBuffer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Allocating and freeing one buffer of {@code size} zeroed bytes (and writing one long into it,
 * so the memory is touched), in ns per allocate+free; what {@code vm.buffer.alloc} and a HAL
 * buffer's allocate/release cost. Ortho, all from a {@link MemoryPool} (64-byte aligned):
 *
 * <ul>
 * <li>{@code pool}: {@link MemoryPool#allocate} and {@code free()} of the raw block;</li>
 * <li>{@code vm-buffer}: {@link VmBuffer#allocate(int, long, long, HostMemoryLimit, MemoryPool)}
 *     and release, as {@code vm.buffer.alloc} in a context (includes the {@code VmBuffer} object);</li>
 * <li>{@code hal-buffer}: {@link Allocator#allocateBuffer} of a {@code local-sync} device (its heap
 *     allocator) and release (includes the {@code HeapBuffer}, statistics and the live-bytes
 *     counter).</li>
 * </ul>
 *
 * <p>Peers in the same run:
 *
 * <ul>
 * <li>{@code shared-arena}: an {@link Arena#ofShared()} per buffer, closed at the free — what
 *     both Ortho allocators did before the pool (the close is a handshake with every JVM thread,
 *     so its cost grows with the thread count; JMH's JVM has few threads, a running Ortho more);</li>
 * <li>{@code confined-arena}: an {@link Arena#ofConfined()} per buffer — the cheapest owning
 *     {@code java.lang.foreign} allocation (malloc/free), but usable by one thread only, so
 *     not an option for buffers that cross threads;</li>
 * <li>{@code bytebuffer-pool}: a plain single-threaded pool of direct {@link ByteBuffer}s (an
 *     {@code ArrayDeque} per size, no atomics, zeroed on reuse) — about the least a pool can
 *     cost, without thread safety, alignment or bounded retention.</li>
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class BufferMemoryBenchmark {
    private static final int RW = VmBuffer.ACCESS_MUTABLE | VmBuffer.ACCESS_ORIGIN_GUEST;

    @Param({"pool", "vm-buffer", "hal-buffer", "shared-arena", "confined-arena", "bytebuffer-pool"})
    public String impl;

    @Param({"64", "4096", "65536"})
    public int size;

    private MemoryPool pool;
    private Device device;
    private Allocator allocator;
    private final ArrayDeque<ByteBuffer> byteBuffers = new ArrayDeque<>();
    private byte[] zeros;

    @Setup(Level.Trial)
    public void setUp() {
        pool = new MemoryPool("bench", 16L << 20);
        device = CpuDrivers.builder().localSync();
        allocator = device.allocator();
        zeros = new byte[size];
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pool.close();
        device.release();
    }

    @Benchmark
    public long allocateAndFree() {
        long n = size;
        switch (impl) {
            case "pool" -> {
                MemoryPool.Block block = pool.allocate(n, 64, true);
                MemorySegment s = block.segment(n);
                s.set(ValueLayout.JAVA_LONG, n - 8, n);
                long v = s.get(ValueLayout.JAVA_LONG, 0);
                block.free();
                return v;
            }
            case "vm-buffer" -> {
                VmBuffer b = VmBuffer.allocate(RW, n, 64, HostMemoryLimit.UNLIMITED, pool);
                b.storeI64(n / 8 - 1, n);
                long v = b.loadI64(0);
                b.release();
                return v;
            }
            case "hal-buffer" -> {
                Buffer b = allocator.allocateBuffer(BufferParams.deviceLocal(), n);
                b.fill(n - 8, 8, 1, 1);
                long v = b.allocationSize();
                b.release();
                return v;
            }
            case "shared-arena" -> {
                Arena arena = Arena.ofShared();
                MemorySegment s = arena.allocate(n, 64);
                s.set(ValueLayout.JAVA_LONG, n - 8, n);
                long v = s.get(ValueLayout.JAVA_LONG, 0);
                arena.close();
                return v;
            }
            case "confined-arena" -> {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment s = arena.allocate(n, 64);
                    s.set(ValueLayout.JAVA_LONG, n - 8, n);
                    return s.get(ValueLayout.JAVA_LONG, 0);
                }
            }
            case "bytebuffer-pool" -> {
                ByteBuffer b = byteBuffers.pollFirst();
                if (b == null) {
                    b = ByteBuffer.allocateDirect(size);
                } else {
                    b.put(0, zeros); // absolute bulk put: no allocation
                }
                b.putLong(size - 8, n);
                long v = b.getLong(0);
                byteBuffers.addFirst(b);
                return v;
            }
            default -> throw new IllegalArgumentException(impl);
        }
    }
}
