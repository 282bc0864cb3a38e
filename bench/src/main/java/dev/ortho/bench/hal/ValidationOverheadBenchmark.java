package dev.ortho.bench.hal;

import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Device;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import dev.ortho.hal.validation.internal.ValidationWrapper;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Cost of the validation wrapper: the same HAL calls on {@code local-sync://} (the peer) and on
 * {@code validation+local-sync://}, both created through the driver registry in the same run.
 *
 * <ul>
 *   <li>{@code recordFill}, {@code recordDispatch}: per recorded command; a command buffer is
 *       created, begun, filled with {@value #COMMANDS} commands, ended and released per
 *       invocation (those fixed costs are shared by the {@value #COMMANDS} operations).
 *   <li>{@code submitEmpty}: per submission of a finished, reusable, empty command buffer that
 *       signals a semaphore (local-sync runs it inline, so this is the submission path alone).
 *   <li>{@code queueFill}: per queue fill of 64 bytes with a signal.
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ValidationOverheadBenchmark {
    static final int COMMANDS = 64;

    @Param({"local-sync", "validation+local-sync"})
    public String device;

    private Device hal;
    private Buffer a;
    private Buffer b;
    private Buffer c;
    private ExecutableCache cache;
    private Executable executable;
    private int mulI32;
    private MemorySegment constants;
    private BufferRef[] bindings;
    private DispatchConfig grid;
    private CommandBuffer empty;
    private Semaphore semaphore;
    private long value;

    @Setup(Level.Trial)
    public void setUp() {
        DriverRegistry registry = new DriverRegistry();
        registry.register(CpuDrivers.builder().localSyncFactory());
        registry.registerWrapper(new ValidationWrapper());
        hal = registry.createDevice(device + "://");
        a = hal.allocator().allocateBuffer(BufferParams.deviceLocal(), 4096);
        b = hal.allocator().allocateBuffer(BufferParams.deviceLocal(), 4096);
        c = hal.allocator().allocateBuffer(BufferParams.deviceLocal(), 4096);
        cache = hal.createExecutableCache("bench");
        executable = cache.prepareExecutable(new ExecutableParams(JvmStaticFormat.FORMAT,
                JvmStaticFormat.encode(CpuDrivers.BUILTIN_KERNELS), new int[0]));
        mulI32 = executable.lookupFunction("mul_i32");
        constants = MemorySegment.ofArray(new int[] {1024});
        bindings = new BufferRef[] {BufferRef.of(a), BufferRef.of(b), BufferRef.of(c)};
        grid = DispatchConfig.ofCount(1, 1, 1);
        empty = hal.createCommandBuffer(0, CommandCategory.ANY, Device.QUEUE_AFFINITY_ANY, 0);
        empty.begin();
        empty.end();
        semaphore = hal.createSemaphore(0);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        semaphore.release();
        empty.release();
        executable.release();
        cache.release();
        a.release();
        b.release();
        c.release();
        hal.close();
    }

    @TearDown(Level.Iteration)
    public void restartTimeline() {
        // keep payloads far below IREE's maximum however long the run
        semaphore.release();
        semaphore = hal.createSemaphore(0);
        value = 0;
    }

    @Benchmark
    @OperationsPerInvocation(COMMANDS)
    public void recordFill() {
        CommandBuffer cb = hal.createCommandBuffer(0, CommandCategory.TRANSFER, Device.QUEUE_AFFINITY_ANY, 0);
        cb.begin();
        for (int i = 0; i < COMMANDS; i++) {
            cb.fillBuffer(BufferRef.of(a, i * 64L, 64), i, 4, 0);
        }
        cb.end();
        cb.release();
    }

    @Benchmark
    @OperationsPerInvocation(COMMANDS)
    public void recordDispatch() {
        CommandBuffer cb = hal.createCommandBuffer(0, CommandCategory.DISPATCH, Device.QUEUE_AFFINITY_ANY, 0);
        cb.begin();
        for (int i = 0; i < COMMANDS; i++) {
            cb.dispatch(executable, mulI32, grid, constants, bindings, 0);
        }
        cb.end();
        cb.release();
    }

    @Benchmark
    public void submitEmpty() {
        hal.queueExecute(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(), SemaphoreList.of(semaphore, ++value),
                empty, BindingTable.empty(), 0);
    }

    @Benchmark
    public void queueFill() {
        hal.queueFill(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(), SemaphoreList.of(semaphore, ++value), a, 0,
                64, 7, 4, 0);
    }
}
