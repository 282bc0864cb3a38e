package dev.ortho.bench.task;

import dev.ortho.task.DrainFunction;
import dev.ortho.task.Executor;
import dev.ortho.task.Process;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
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
 * {@value #BATCH} budget-1 processes (one drain each) submitted from one thread through the
 * immediate list, then awaited; reports processes per second. ForkJoin: {@code execute} of the
 * same number of runnables.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ImmediateThroughputBenchmark {
    static final int BATCH = 10_000;

    @Param({"ortho", "forkjoin"})
    public String impl;

    private Executor executor;
    private ForkJoinPool pool;
    private volatile CountDownLatch latch;
    private final DrainFunction drain = (p, w, r) -> {
        r.complete();
    };
    private final Process.CompletionCallback countDown = (p, e) -> latch.countDown();
    private final Runnable task = () -> latch.countDown();

    @Setup(Level.Trial)
    public void setUp() {
        if (impl.equals("ortho")) {
            executor = Pools.ortho();
        } else {
            pool = Pools.forkJoin();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        Pools.close(executor, pool);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void processes() throws InterruptedException {
        CountDownLatch l = new CountDownLatch(BATCH);
        latch = l;
        if (executor != null) {
            for (int i = 0; i < BATCH; i++) {
                executor.newProcess("imm", drain).onComplete(countDown).build().schedule();
            }
        } else {
            for (int i = 0; i < BATCH; i++) {
                pool.execute(task);
            }
        }
        l.await();
    }
}
