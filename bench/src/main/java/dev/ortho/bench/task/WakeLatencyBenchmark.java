package dev.ortho.bench.task;

import dev.ortho.task.Executor;
import dev.ortho.task.ExecutorStats;
import dev.ortho.task.Process;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
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
 * Wake latency from a fully idle pool: every worker is parked → the benchmark thread schedules
 * one budget-1 process (ForkJoin: {@code execute} of one task) → the first drain starts and
 * raises a flag that the benchmark thread spins on. Sampled per operation (percentiles, ns).
 *
 * <p>Before every operation (untimed {@code Level.Invocation} set-up, which costs nothing
 * relative to a µs-scale operation in {@code SampleTime} mode) the benchmark waits until each
 * worker thread is really parked: Ortho's stats report {@code PARKED} and the JVM reports the
 * thread {@code WAITING}; for ForkJoin every worker thread the pool has created is
 * {@code WAITING}/{@code TIMED_WAITING}. The process (task) is built there too, so the timed
 * region is exactly {@code schedule} → drain start → flag seen by the caller. The last step is
 * one cache-line transfer (~0.1–0.3 µs) and is the same for both peers.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class WakeLatencyBenchmark {
    @Param({"ortho", "forkjoin"})
    public String impl;

    private Executor executor;
    private ForkJoinPool pool;
    private final List<Thread> workerThreads = new ArrayList<>();
    private volatile boolean started;
    private final Runnable task = () -> started = true;
    private Process next;

    @Setup(Level.Trial)
    public void setUp() {
        if (impl.equals("ortho")) {
            executor = Pools.ortho();
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().startsWith("ortho-worker-")) {
                    workerThreads.add(t);
                }
            }
        } else {
            pool = new ForkJoinPool(Pools.threads(), p -> {
                ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(p);
                synchronized (workerThreads) {
                    workerThreads.add(t);
                }
                return t;
            }, null, false);
        }
    }

    @Setup(Level.Invocation)
    public void prepareWithAllWorkersParked() {
        started = false;
        if (executor != null) {
            next = executor.newProcess("wake", (p, w, r) -> {
                started = true;
                r.complete();
            }).build();
        }
        while (!allParked()) {
            Thread.yield();
        }
    }

    private boolean allParked() {
        if (executor != null) {
            for (ExecutorStats.WorkerStats w : executor.stats().workers()) {
                if (!w.state().equals("PARKED")) {
                    return false;
                }
            }
        }
        synchronized (workerThreads) {
            for (Thread t : workerThreads) {
                Thread.State s = t.getState();
                if (t.isAlive() && s != Thread.State.WAITING && s != Thread.State.TIMED_WAITING) {
                    return false;
                }
            }
        }
        return true;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        Pools.close(executor, pool);
    }

    @Benchmark
    public boolean wake() {
        if (executor != null) {
            next.schedule();
        } else {
            pool.execute(task);
        }
        while (!started) {
            Thread.onSpinWait();
        }
        return true;
    }
}
