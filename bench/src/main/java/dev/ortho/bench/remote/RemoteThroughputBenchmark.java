package dev.ortho.bench.remote;

import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.Device;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Throughput of the remote HAL: pipelined 1-tile dispatches ({@code fill_x32} of 64 elements,
 * 64 submitted back to back, one host wait at the end) against the same work on a local-sync
 * device in process; and bulk transfer (16 MiB host write then read back, from and into a
 * {@code byte[]} or, with {@code -p host=native}, off-heap memory) against streaming the same
 * bytes both ways over a raw loopback socket (direct buffers).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RemoteThroughputBenchmark {
    private static final int BATCH = 64;
    private static final int BULK = 16 << 20;

    @Param({"remote", "local"})
    public String impl;

    /**
     * The host memory {@code bulkTransfer} writes from and reads into: {@code heap} (a
     * {@code byte[]}) or {@code native} (off-heap, as the raw-socket peer's direct buffers).
     */
    @Param({"heap"})
    public String host = "heap";

    /** Extra device URI parameters of the remote side ("" or "&k=v…"; {@link RemoteInterleavedRun}'s third argument). */
    public String uriParams = "";

    private RemoteFixture fixture;
    private Device device;
    private ExecutableCache cache;
    private Executable executable;
    private int fill;
    private Buffer out;
    private Buffer bulk;
    private Semaphore done;
    private long value;
    private MemorySegment constants;
    private MemorySegment bulkHost;
    private java.lang.foreign.Arena bulkArena;
    private RawPingPong raw;
    private ByteBuffer rawBulk;
    private byte[] rawHeap;

    @Setup(Level.Trial)
    public void setUp() {
        fixture = new RemoteFixture();
        device = impl.equals("remote") ? fixture.connect(uriParams) : fixture.local();
        cache = device.createExecutableCache("bench");
        executable = cache.prepareExecutable(new ExecutableParams(JvmStaticFormat.FORMAT,
                JvmStaticFormat.encode(CpuDrivers.BUILTIN_KERNELS), new int[0]));
        fill = executable.lookupFunction("fill_x32");
        out = device.allocator().allocateBuffer(BufferParams.hostLocal(), 256);
        bulk = device.allocator().allocateBuffer(BufferParams.hostLocal(), BULK);
        if (host.equals("native")) {
            bulkArena = java.lang.foreign.Arena.ofShared();
            bulkHost = bulkArena.allocate(BULK);
        } else {
            bulkHost = MemorySegment.ofArray(new byte[BULK]);
        }
        done = device.createSemaphore(0);
        constants = MemorySegment.ofArray(new int[] {64, 5});
        if (impl.equals("local")) {
            raw = new RawPingPong(BULK, BULK);
            rawBulk = ByteBuffer.allocateDirect(BULK);
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long pipelinedDispatches() {
        BufferRef[] bindings = {BufferRef.of(out)};
        for (int i = 0; i < BATCH; i++) {
            device.queueDispatch(-1, SemaphoreList.empty(), SemaphoreList.of(done, ++value), executable, fill,
                    DispatchConfig.ofCount(1, 1, 1), constants, bindings, 0);
        }
        done.await(value, Timeout.infinite());
        return value;
    }

    /**
     * 16 MiB to the device and back: {@code remote} through {@code Buffer.write}/{@code read};
     * the {@code local} row instead streams the same bytes out and back over a raw loopback
     * socket, the network floor the remote path is compared with.
     */
    @Benchmark
    public long bulkTransfer() throws IOException {
        if (raw != null) {
            rawBulk.clear();
            raw.send(rawBulk);
            raw.receive(BULK);
            return BULK;
        }
        bulk.write(0, bulkHost);
        bulk.read(0, bulkHost);
        return bulkHost.byteSize();
    }

    /**
     * The {@code local} row's raw-socket streaming from and into a {@code byte[]} (256 KiB per
     * socket call) instead of direct buffers: the peer for {@code remote} with {@code host=heap},
     * which must move heap bytes the same way. Used by {@link RemoteInterleavedRun} ({@code bulk}).
     */
    public long bulkTransferRawHeap() throws IOException {
        if (rawHeap == null) {
            rawHeap = new byte[BULK];
        }
        raw.sendHeap(rawHeap, 256 << 10);
        raw.receiveHeap(rawHeap, 256 << 10);
        return BULK;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        done.release();
        bulk.release();
        out.release();
        executable.release();
        cache.release();
        device.close();
        fixture.close();
        if (raw != null) {
            raw.close();
        }
        if (bulkArena != null) {
            bulkArena.close();
        }
    }
}
