package dev.ortho.bench.hal;

import dev.ortho.base.Timeout;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Device;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Executable;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.CpuDrivers;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * f32 matmul {@code C[n][n] = A · B} through {@code queueExecute} on {@code local-task} with the
 * builtin kernel: one command buffer with one dispatch of {@code (n/32)²} 32×32 tiles, submitted
 * and awaited per operation. {@code kernel=matmul_f32} is the Vector API microkernel,
 * {@code matmul_f32_scalar} its scalar fallback (the in-run peer). GFLOP/s = 2n³ / time.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class MatmulBenchmark {
    @Param({"256", "512", "1024"})
    public int n;

    @Param({"1", "2"})
    public int workers;

    @Param({"matmul_f32", "matmul_f32_scalar"})
    public String kernel;

    private Device device;
    private Executable executable;
    private Buffer a;
    private Buffer b;
    private Buffer c;
    private CommandBuffer commandBuffer;
    private Semaphore semaphore;
    private long value;

    @Setup(Level.Trial)
    public void setUp() {
        device = LocalTaskBench.device(workers);
        executable = LocalTaskBench.executable(device, CpuDrivers.BUILTIN_KERNELS);
        long bytes = 4L * n * n;
        a = device.allocator().allocateBuffer(BufferParams.hostLocal(), bytes);
        b = device.allocator().allocateBuffer(BufferParams.hostLocal(), bytes);
        c = device.allocator().allocateBuffer(BufferParams.hostLocal(), bytes);
        Random random = new Random(1);
        MemorySegment data = MemorySegment.ofArray(new float[n * n]);
        for (long i = 0; i < (long) n * n; i++) {
            data.setAtIndex(ValueLayout.JAVA_FLOAT, i, random.nextFloat());
        }
        a.write(0, data);
        b.write(0, data);
        int tiles = n / executable.functionInfo(executable.lookupFunction(kernel)).workgroupSizeX();
        commandBuffer = device.createCommandBuffer(0, CommandCategory.DISPATCH, Device.QUEUE_AFFINITY_ANY, 0);
        commandBuffer.begin();
        commandBuffer.dispatch(executable, executable.lookupFunction(kernel), DispatchConfig.ofCount(tiles, tiles, 1),
                MemorySegment.ofArray(new int[] {n, n, n}),
                new BufferRef[] {BufferRef.of(a), BufferRef.of(b), BufferRef.of(c)}, 0);
        commandBuffer.end();
        semaphore = device.createSemaphore(0);
    }

    @Benchmark
    public long matmul() {
        device.queueExecute(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(), SemaphoreList.of(semaphore, ++value),
                commandBuffer, BindingTable.empty(), 0);
        semaphore.await(value, Timeout.infinite());
        return value;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        semaphore.release();
        commandBuffer.release();
        executable.release();
        a.release();
        b.release();
        c.release();
        device.close();
    }
}
