package dev.ortho.bench.task;

import dev.ortho.task.DrainFunction;
import dev.ortho.task.Executor;
import dev.ortho.task.Process;
import java.util.concurrent.CompletableFuture;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * A chain of {@value #LINKS} dependent "dispatches", each of {@code tiles} tiles of about 1 µs
 * ({@code Blackhole.consumeCPU(TILE_TOKENS)}, calibrated with ConsumeCpuCalibrationBenchmark).
 * Reports µs per link. Every peer builds its chain inside the measured method.
 *
 * <ul>
 *   <li>{@code ortho}: one process per link, linked with {@code addDependent}, tiles claimed by
 *       an atomic counter, wake budget = tiles (capped at the worker count); at one tile per link
 *       one drain function shared by every link (no counter; as {@code forkjoin-cf} shares one
 *       {@code Runnable}); one external
 *       {@code schedule}, each completion activates the next link on the worker.
 *   <li>{@code ortho-rearm}: the same chain of reusable processes ({@code Process.Builder.reusable()}),
 *       built and linked once per trial; every call re-arms the 100 links ({@code Process.rearm()},
 *       no allocation), schedules the first and waits until every link has been released (one
 *       counter per chain, incremented by each link's release callback). The idiom of a
 *       recorded-once, submitted-many-times graph (a reusable command buffer).
 *   <li>{@code forkjoin-cf} (the fair peer for the chaining cost): one external submission, links
 *       chained inside the pool as {@code CompletableFuture.thenRunAsync(link, pool)}; each link
 *       is its own pool task, submitted by the worker that finished the previous one, and runs
 *       its tiles with a binary-splitting {@link RecursiveAction} ({@code invokeAll}) from inside
 *       that worker.
 *   <li>{@code forkjoin-task}: one task submitted once that runs each link's tiles in turn with
 *       {@code invoke} of the splitting action from inside a worker (no per-link task at all; at
 *       one tile per link this is a plain loop, the floor).
 *   <li>{@code forkjoin-roundtrip}: {@code pool.invoke} of the splitting action per link from
 *       the benchmark thread, so every link round-trips through an external submission and a
 *       wake of the caller. It measures the external wake, not chaining; kept as the naive
 *       idiom.
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class DispatchChainBenchmark {
    static final int LINKS = 100;
    /** ~1.0 µs on the development machine (1.69 ns per token, ConsumeCpuCalibrationBenchmark). */
    static final long TILE_TOKENS = 600;
    /** Most tiles one drain call of a multi-tile link claims (local-task's limit; see {@code tileDrain}). */
    static final int MAX_TILE_BATCH = Integer.getInteger("ortho.bench.maxTileBatch", 64);

    @Param({"ortho", "ortho-rearm", "forkjoin-cf", "forkjoin-task", "forkjoin-roundtrip"})
    public String impl;

    @Param({"1", "64"})
    public int tiles;

    /**
     * Work per tile in {@code Blackhole.consumeCPU} tokens; {@value #TILE_TOKENS} (≈ 1 µs) by
     * default. {@code -p tileTokens=0} leaves only the per-link overhead of each idiom.
     */
    @Param({"" + TILE_TOKENS})
    public long tileTokens;

    private Executor executor;
    private ForkJoinPool pool;
    /** {@code ortho-rearm}: the reusable chain, its per-link tile counters and the run's latch. */
    private Process[] reusable;
    private TileCounters[] counters;
    private final AtomicInteger released = new AtomicInteger();
    private volatile CountDownLatch allReleased;

    @Setup(Level.Trial)
    public void setUp() {
        if (impl.startsWith("ortho")) {
            executor = Pools.ortho();
            if (impl.equals("ortho-rearm")) {
                buildReusableChain();
            }
        } else {
            pool = Pools.forkJoin();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        Pools.close(executor, pool);
    }

    @Benchmark
    @OperationsPerInvocation(LINKS)
    public void chain() throws InterruptedException {
        switch (impl) {
            case "ortho" -> orthoChain();
            case "ortho-rearm" -> rearmedChain();
            case "forkjoin-cf" -> completableFutureChain();
            case "forkjoin-task" -> pool.invoke(new Chain(tiles, tileTokens));
            case "forkjoin-roundtrip" -> {
                for (int i = 0; i < LINKS; i++) {
                    pool.invoke(new Tiles(0, tiles, tileTokens));
                }
            }
            default -> throw new IllegalArgumentException(impl);
        }
    }

    private void completableFutureChain() {
        int t = tiles;
        long tokens = tileTokens;
        Runnable link = t == 1 ? () -> Blackhole.consumeCPU(tokens) : () -> new Tiles(0, t, tokens).invoke();
        CompletableFuture<Void> head = new CompletableFuture<>();
        CompletableFuture<Void> tail = head;
        for (int i = 0; i < LINKS; i++) {
            tail = tail.thenRunAsync(link, pool);
        }
        head.complete(null);  // the one external activation: the first link is submitted from here
        tail.join();
    }

    private void orthoChain() throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        int budget = Math.min(tiles, executor.workerCount());
        Process first = null;
        Process previous = null;
        long tokens = tileTokens;
        // One tile: one drain function shared by every link, as forkjoin-cf shares one Runnable
        // (a budget-1 process is drained by one worker at a time, so it needs no tile counter).
        DrainFunction oneTile = (p, w, r) -> {
            Blackhole.consumeCPU(tokens);
            r.complete();
        };
        for (int i = 0; i < LINKS; i++) {
            DrainFunction drain = tiles == 1 ? oneTile : tileDrain(tiles, tokens);
            Process.Builder b = executor.newProcess("link", drain).wakeBudget(budget);
            if (i == LINKS - 1) {
                b.onComplete((p, e) -> done.countDown());
            }
            Process link = b.build();
            if (previous != null) {
                previous.addDependent(link);
            } else {
                first = link;
            }
            previous = link;
        }
        first.schedule();
        done.await();
    }

    private void buildReusableChain() {
        int budget = Math.min(tiles, executor.workerCount());
        long tokens = tileTokens;
        DrainFunction oneTile = (p, w, r) -> {
            Blackhole.consumeCPU(tokens);
            r.complete();
        };
        Process.ReleaseCallback onRelease = p -> {
            if (released.incrementAndGet() == LINKS) {
                allReleased.countDown();
            }
        };
        reusable = new Process[LINKS];
        counters = new TileCounters[LINKS];
        for (int i = 0; i < LINKS; i++) {
            DrainFunction drain = oneTile;
            if (tiles > 1) {
                counters[i] = new TileCounters();
                drain = tileDrain(tiles, tokens, counters[i]);
            }
            reusable[i] = executor.newProcess("link", drain).wakeBudget(budget).reusable().onRelease(onRelease).build();
            if (i > 0) {
                reusable[i - 1].addDependent(reusable[i]);
            }
        }
        // A fresh process has no released run to re-arm: run the chain once here.
        CountDownLatch done = new CountDownLatch(1);
        allReleased = done;
        reusable[0].schedule();
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private void rearmedChain() throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        allReleased = done;
        released.set(0);
        Process[] links = reusable;
        for (int i = 0; i < LINKS; i++) {
            TileCounters c = counters[i];
            if (c != null) {
                c.reset();  // the previous run is released: no worker is in its drain
            }
            links[i].rearm();
        }
        links[0].schedule();
        done.await();
    }

    /** The tile claim and completion counters of one link (reset between runs of a reusable chain). */
    static final class TileCounters {
        final AtomicInteger next = new AtomicInteger();
        final AtomicInteger finished = new AtomicInteger();

        void reset() {
            next.set(0);
            finished.set(0);
        }
    }

    /** A link of {@code t} tiles: tiles claimed by an atomic counter, the last one completes. */
    private static DrainFunction tileDrain(int t, long tokens) {
        return tileDrain(t, tokens, new TileCounters());
    }

    /**
     * Each drain call claims one batch of tiles with one CAS, sized as local-task's dispatches
     * claim theirs ({@code Execution}: a quarter of the remaining tiles per worker, 1 to 64), runs
     * it and returns (one batch per call keeps the worker's scan fair between processes); the
     * worker retiring the last tile completes the link. With one tile per call (before issue 18's
     * fifth round) the slot's drain protocol per call cost about as much as an empty tile;
     * {@code -Dortho.bench.maxTileBatch=1} gives that one-tile drain back (for A/B runs).
     */
    private static DrainFunction tileDrain(int t, long tokens, TileCounters c) {
        AtomicInteger next = c.next;
        AtomicInteger finished = c.finished;
        return (p, w, r) -> {
            int tile;
            int n;
            do {
                tile = next.get();
                if (tile >= t) {
                    return;  // all claimed; the worker running the last tile completes
                }
                n = Math.max(1, Math.min(MAX_TILE_BATCH, (t - tile) / (4 * w.workerCount())));
            } while (!next.compareAndSet(tile, tile + n));
            for (int i = 0; i < n; i++) {
                Blackhole.consumeCPU(tokens);
            }
            if (finished.addAndGet(n) == t) {
                r.complete();
            } else {
                r.didWork();
            }
        };
    }

    /** One in-pool task running {@value #LINKS} links of {@code tiles} tiles each in order. */
    static final class Chain extends RecursiveAction {
        private final int tiles;
        private final long tokens;

        Chain(int tiles, long tokens) {
            this.tiles = tiles;
            this.tokens = tokens;
        }

        @Override
        protected void compute() {
            for (int i = 0; i < LINKS; i++) {
                new Tiles(0, tiles, tokens).invoke();
            }
        }
    }

    static final class Tiles extends RecursiveAction {
        private final int from;
        private final int to;
        private final long tokens;

        Tiles(int from, int to, long tokens) {
            this.from = from;
            this.to = to;
            this.tokens = tokens;
        }

        @Override
        protected void compute() {
            if (to - from == 1) {
                Blackhole.consumeCPU(tokens);
                return;
            }
            int mid = (from + to) >>> 1;
            invokeAll(new Tiles(from, mid, tokens), new Tiles(mid, to, tokens));
        }
    }
}
