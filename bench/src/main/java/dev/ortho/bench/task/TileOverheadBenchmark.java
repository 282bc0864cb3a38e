package dev.ortho.bench.task;

import dev.ortho.task.DrainFunction;
import dev.ortho.task.Executor;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * One process with {@value #TILES} empty tiles, claimed {@value #BATCH} at a time by every
 * worker; reports ns per tile. The drain function is created once per trial (a reusable
 * non-capturing-per-call object) so steady-state allocation is the per-invocation process only.
 * ForkJoin: a {@link RecursiveAction} splitting the range down to {@value #BATCH}-tile leaves.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TileOverheadBenchmark {
    static final int TILES = 1_000_000;
    static final int BATCH = 64;

    @Param({"ortho", "forkjoin"})
    public String impl;

    private Executor executor;
    private ForkJoinPool pool;
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger finished = new AtomicInteger();
    private DrainFunction drain;
    static volatile int sink;

    @Setup(Level.Trial)
    public void setUp() {
        if (impl.equals("ortho")) {
            executor = Pools.ortho();
            drain = (p, w, r) -> {
                int start = next.getAndAdd(BATCH);
                if (start >= TILES) {
                    return;
                }
                int end = Math.min(TILES, start + BATCH);
                int acc = 0;
                for (int t = start; t < end; t++) {
                    acc += t;  // the empty tile
                }
                sink = acc;
                if (finished.addAndGet(end - start) == TILES) {
                    r.complete();
                } else {
                    r.didWork();
                }
            };
        } else {
            pool = Pools.forkJoin();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        Pools.close(executor, pool);
    }

    @Benchmark
    @OperationsPerInvocation(TILES)
    public void tiles() throws InterruptedException {
        if (executor == null) {
            pool.invoke(new Range(0, TILES));
            return;
        }
        next.set(0);
        finished.set(0);
        CountDownLatch latch = new CountDownLatch(1);
        executor.newProcess("tiles", drain).wakeBudget(executor.workerCount())
                .onComplete((p, e) -> latch.countDown()).build().schedule();
        latch.await();
    }

    static final class Range extends RecursiveAction {
        private final int from;
        private final int to;

        Range(int from, int to) {
            this.from = from;
            this.to = to;
        }

        @Override
        protected void compute() {
            if (to - from <= BATCH) {
                int acc = 0;
                for (int t = from; t < to; t++) {
                    acc += t;
                }
                sink = acc;
                return;
            }
            int mid = (from + to) >>> 1;
            invokeAll(new Range(from, mid), new Range(mid, to));
        }
    }
}
