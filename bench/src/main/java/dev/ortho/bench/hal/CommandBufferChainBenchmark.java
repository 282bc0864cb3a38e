package dev.ortho.bench.hal;

import dev.ortho.base.Timeout;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.Device;
import dev.ortho.hal.Executable;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
 * Dispatch-to-dispatch cost inside one command buffer: {@value #K} barrier-separated 1-tile
 * dispatches (each region waits for the previous one), µs per dispatch, on {@code local-task}
 * with 2 workers. The kernel adds 1 to a counter ({@code work=0}) or also spins ~1 µs
 * ({@code work=1000} ns). Peer: the equivalent {@link ForkJoinPool} (2 threads) pipeline, a
 * chain of {@value #K} {@code thenRunAsync} stages running the same kernel body, joined at the
 * end.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@OperationsPerInvocation(CommandBufferChainBenchmark.K)
@Fork(jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class CommandBufferChainBenchmark {
    static final int K = 100;

    @Param({"local-task", "forkjoin"})
    public String impl;

    @Param({"0", "1000"})
    public long work;

    private final AtomicLong counter = new AtomicLong();
    private Device device;
    private Executable executable;
    private CommandBuffer commandBuffer;
    private Semaphore semaphore;
    private Buffer unused;
    private long value;
    private ForkJoinPool pool;
    private Runnable stage;

    private void body() {
        counter.incrementAndGet();
        if (work > 0) {
            long end = System.nanoTime() + work;
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        stage = this::body;
        if (impl.equals("local-task")) {
            device = LocalTaskBench.device(2, LocalTaskBench.library("bench", "step", (d, w) -> body()));
            executable = LocalTaskBench.executable(device, "bench");
            unused = device.allocator().allocateBuffer(BufferParams.hostLocal(), 64);
            commandBuffer = LocalTaskBench.barrierChain(device, executable, K);
            semaphore = device.createSemaphore(0);
        } else {
            pool = new ForkJoinPool(2);
        }
    }

    @Benchmark
    public long chain() {
        if (device != null) {
            device.queueExecute(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(), SemaphoreList.of(semaphore, ++value),
                    commandBuffer, BindingTable.empty(), 0);
            semaphore.await(value, Timeout.infinite());
        } else {
            CompletableFuture<Void> f = CompletableFuture.runAsync(stage, pool);
            for (int i = 1; i < K; i++) {
                f = f.thenRunAsync(stage, pool);
            }
            f.join();
        }
        return counter.get();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (device != null) {
            semaphore.release();
            commandBuffer.release();
            executable.release();
            unused.release();
            device.close();
        } else {
            pool.shutdownNow();
        }
    }
}
