package dev.ortho.bench.hal;

import dev.ortho.base.Timeout;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Device;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Executable;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
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
 * Queue latency of {@code local-task} with 2 workers (sampled, ns), against a
 * {@link ForkJoinPool} of 2 threads running the same kernel as a task:
 * <ul>
 *   <li>{@code submitToFirstWorkgroup}: {@code queueExecute} of a command buffer holding one
 *       1-tile dispatch with no waits → the kernel starts (it raises a flag the benchmark thread
 *       spins on). ForkJoin: {@code execute} of a task calling the kernel → the flag. With
 *       {@code task_caller_runs=1} ({@code local-task}) the submitting thread runs that tile
 *       itself inside {@code queueExecute} (no worker wake-up); {@code local-task-workers}
 *       measures the worker path ({@code task_caller_runs=0}, the device default).
 *   <li>{@code roundTrip}: {@code queueExecute} → the host thread returns from waiting on the
 *       signal semaphore. ForkJoin: {@code runAsync(kernel, pool).join()}. The difference of the
 *       two rows is the time from the last workgroup to the signal observed by a waiting host.
 * </ul>
 * Each invocation starts after the previous one retired (untimed {@code Level.Invocation} set-up,
 * negligible against µs-scale operations in {@code SampleTime} mode). The device's workers do not
 * spin ({@code task_worker_spin_us=0}) and linger adaptively ({@code task_worker_linger_us=auto},
 * the default): back-to-back invocations find a worker still polling, which is the steady state
 * of a busy queue (before issue 18's adaptive linger the workers parked between invocations).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class QueueLatencyBenchmark {
    /**
     * {@code local-task}: the submitting thread runs the first tile itself
     * ({@code task_caller_runs=1}, opt-in); {@code local-task-workers}: every tile on a worker
     * ({@code task_caller_runs=0&task_waiter_helps=0}, IREE's tile placement and the default before
     * issue 18's waiter help; the default adaptive linger); {@code local-task-default}: the device
     * defaults (a waiting host thread runs the tiles left, {@code task_waiter_helps=1}, only
     * {@code roundTrip} waits; workers linger adaptively, {@code task_worker_linger_us=auto}).
     */
    @Param({"local-task", "local-task-workers", "local-task-default", "forkjoin"})
    public String impl;

    private volatile boolean started;
    private Device device;
    private Executable executable;
    private CommandBuffer commandBuffer;
    private Semaphore semaphore;
    private long value;
    private ForkJoinPool pool;
    private final Runnable kernelTask = () -> started = true;

    @Setup(Level.Trial)
    public void setUp() {
        if (impl.startsWith("local-task")) {
            String params = switch (impl) {
                case "local-task" -> "?task_caller_runs=1";
                case "local-task-workers" -> "?task_caller_runs=0&task_waiter_helps=0";
                default -> "";
            };
            device = LocalTaskBench.device(2, params,
                    LocalTaskBench.library("bench", "flag", (d, w) -> started = true));
            executable = LocalTaskBench.executable(device, "bench");
            commandBuffer = device.createCommandBuffer(0, CommandCategory.DISPATCH, Device.QUEUE_AFFINITY_ANY, 0);
            commandBuffer.begin();
            commandBuffer.dispatch(executable, 0, DispatchConfig.ofCount(1, 1, 1), MemorySegment.NULL,
                    new BufferRef[0], 0);
            commandBuffer.end();
            semaphore = device.createSemaphore(0);
        } else {
            pool = new ForkJoinPool(2);
        }
    }

    @Setup(Level.Invocation)
    public void completePreviousAndReset() {
        if (semaphore != null) {
            semaphore.await(value, Timeout.infinite()); // the previous submission retired
        }
        started = false;
    }

    @Benchmark
    public void submitToFirstWorkgroup() {
        if (device != null) {
            device.queueExecute(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(), SemaphoreList.of(semaphore, ++value),
                    commandBuffer, BindingTable.empty(), 0);
            while (!started) {
                Thread.onSpinWait();
            }
        } else {
            pool.execute(kernelTask);
            while (!started) {
                Thread.onSpinWait();
            }
        }
    }

    @Benchmark
    public void roundTrip() {
        if (device != null) {
            device.queueExecute(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(), SemaphoreList.of(semaphore, ++value),
                    commandBuffer, BindingTable.empty(), 0);
            semaphore.await(value, Timeout.infinite());
        } else {
            CompletableFuture.runAsync(kernelTask, pool).join();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (device != null) {
            semaphore.release();
            commandBuffer.release();
            executable.release();
            device.close();
        } else {
            pool.shutdownNow();
        }
    }
}
