package dev.ortho.bench.task;

import dev.ortho.task.DrainFunction;
import dev.ortho.task.Executor;
import dev.ortho.task.Process;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Where a 1-tile {@link DispatchChainBenchmark} chain spends its time, Ortho ({@code ortho}: built
 * per round; {@code ortho-rearm}: a reusable chain re-armed per round, done when every link is
 * released) against {@code forkjoin-cf} in rotating rounds (same idioms): building (re-arming) the {@value #LINKS} links,
 * running them (the external start until the last link's work is done), and handing the result
 * back (the last link done until the waiting thread returns from {@code await}/{@code join}).
 * Prints each phase's median and quartiles in ns per chain. Not a JMH benchmark.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.ortho.bench.task.ChainPhaseSplit 600 4000
 * java -cp bench/target/benchmarks.jar dev.ortho.bench.task.ChainPhaseSplit 600 4000 0
 * </pre>
 *
 * Arguments: work per tile in {@code Blackhole.consumeCPU} tokens, measured rounds (a fifth
 * more warm up first), and optionally Ortho's idle spin in ns (default: the executor's).
 */
public final class ChainPhaseSplit {
    static final int LINKS = DispatchChainBenchmark.LINKS;
    private static final String[] PHASES = {"build", "start -> last link done", "last done -> waiter back"};
    private static volatile long lastDone;
    private static final String[] SIDES = {"ortho", "forkjoin-cf", "ortho-rearm"};

    /**
     * {@code -Dortho.bench.pollWait=true}: every side's waiting thread polls (yielding) instead of
     * parking — an experiment that isolates the waiter's wake-up from the hand-back.
     */
    private static final boolean POLL = Boolean.getBoolean("ortho.bench.pollWait");

    private ChainPhaseSplit() {
    }

    private static void awaitLatch(CountDownLatch done) throws InterruptedException {
        if (POLL) {
            while (done.getCount() != 0) {
                Thread.yield();
            }
        }
        done.await();
    }

    public static void main(String[] args) throws Exception {
        long tokens = args.length > 0 ? Long.parseLong(args[0]) : DispatchChainBenchmark.TILE_TOKENS;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 4000;
        Executor.Builder eb = Executor.builder().workerCount(Pools.threads()).name("split");
        if (args.length > 2) {
            eb.spinNanos(Long.parseLong(args[2]));
        }
        Executor executor = eb.build();
        ForkJoinPool pool = Pools.forkJoin();
        DrainFunction tile = (p, w, r) -> {
            Blackhole.consumeCPU(tokens);
            r.complete();
        };
        Runnable link = () -> Blackhole.consumeCPU(tokens);
        Runnable lastLink = () -> {
            Blackhole.consumeCPU(tokens);
            lastDone = System.nanoTime();
        };
        // ortho-rearm: built and run once here; every round re-arms it. Done = all links released.
        Process[] reusable = new Process[LINKS];
        AtomicInteger released = new AtomicInteger();
        CountDownLatch[] allReleased = {new CountDownLatch(1)};
        for (int i = 0; i < LINKS; i++) {
            boolean last = i == LINKS - 1;
            reusable[i] = executor.newProcess("link", tile).reusable()
                    .onComplete(last ? (p, e) -> lastDone = System.nanoTime() : null)
                    .onRelease(p -> {
                        if (released.incrementAndGet() == LINKS) {
                            allReleased[0].countDown();
                        }
                    }).build();
            if (i > 0) {
                reusable[i - 1].addDependent(reusable[i]);
            }
        }
        reusable[0].schedule();
        allReleased[0].await();
        long[][][] ns = new long[SIDES.length][PHASES.length][rounds];  // [side][phase][round]
        for (int r = -rounds / 5; r < rounds; r++) {
            for (int side = 0; side < SIDES.length; side++) {
                int who = Math.floorMod(r + side, SIDES.length);  // rotate who goes first
                long t0 = System.nanoTime();
                long started;
                long back;
                if (who == 0) {
                    CountDownLatch done = new CountDownLatch(1);
                    Process first = null;
                    Process previous = null;
                    for (int i = 0; i < LINKS; i++) {
                        Process.Builder b = executor.newProcess("link", tile);
                        if (i == LINKS - 1) {
                            b.onComplete((p, e) -> {
                                lastDone = System.nanoTime();
                                done.countDown();
                            });
                        }
                        Process l = b.build();
                        if (previous != null) {
                            previous.addDependent(l);
                        } else {
                            first = l;
                        }
                        previous = l;
                    }
                    started = System.nanoTime();
                    first.schedule();
                    awaitLatch(done);
                    back = System.nanoTime();
                } else if (who == 2) {
                    CountDownLatch done = new CountDownLatch(1);
                    allReleased[0] = done;
                    released.set(0);
                    for (Process p : reusable) {
                        p.rearm();
                    }
                    started = System.nanoTime();
                    reusable[0].schedule();
                    awaitLatch(done);
                    back = System.nanoTime();
                } else {
                    CompletableFuture<Void> head = new CompletableFuture<>();
                    CompletableFuture<Void> tail = head;
                    for (int i = 0; i < LINKS; i++) {
                        tail = tail.thenRunAsync(i == LINKS - 1 ? lastLink : link, pool);
                    }
                    started = System.nanoTime();
                    head.complete(null);
                    if (POLL) {
                        while (!tail.isDone()) {
                            Thread.yield();
                        }
                    }
                    tail.join();
                    back = System.nanoTime();
                }
                if (r >= 0) {
                    ns[who][0][r] = started - t0;
                    ns[who][1][r] = lastDone - started;
                    ns[who][2][r] = back - lastDone;
                }
            }
        }
        System.out.printf(Locale.ROOT, "chain phases, tokens=%d rounds=%d spin=%s (ns per chain of %d: median (p25..p75))%n",
                tokens, rounds, args.length > 2 ? args[2] : "default", LINKS);
        for (int k = 0; k < PHASES.length; k++) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-26s", PHASES[k]));
            for (int side = 0; side < SIDES.length; side++) {
                long[] o = ns[side][k].clone();
                Arrays.sort(o);
                line.append(String.format(Locale.ROOT, "   %s %8d (%d..%d)", SIDES[side], o[rounds / 2], o[rounds / 4],
                        o[rounds * 3 / 4]));
            }
            System.out.println(line);
        }
        executor.shutdown(Duration.ofSeconds(10));
        Pools.close(null, pool);
    }
}
