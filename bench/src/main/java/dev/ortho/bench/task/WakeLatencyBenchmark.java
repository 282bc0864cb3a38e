package dev.ortho.bench.task;

import dev.ortho.task.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
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
 * All workers parked (the invocation set-up sleeps 2 ms, far beyond the 50 µs spin) →
 * schedule one budget-1 process (ForkJoin: {@code execute} one task) → its first drain starts
 * and raises a flag that the benchmark thread spins on. Reports ns from schedule to flag seen.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class WakeLatencyBenchmark {
    @Param({"ortho", "forkjoin"})
    public String impl;

    private Executor executor;
    private ForkJoinPool pool;
    private volatile boolean started;
    private final Runnable task = () -> started = true;

    @Setup(Level.Trial)
    public void setUp() {
        if (impl.equals("ortho")) {
            executor = Pools.ortho();
        } else {
            pool = Pools.forkJoin();
        }
    }

    @Setup(Level.Invocation)
    public void letWorkersPark() {
        started = false;
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        Pools.close(executor, pool);
    }

    @Benchmark
    public boolean wake() {
        if (executor != null) {
            executor.newProcess("wake", (p, w, r) -> {
                started = true;
                r.complete();
            }).build().schedule();
        } else {
            pool.execute(task);
        }
        while (!started) {
            Thread.onSpinWait();
        }
        return true;
    }
}
