package dev.ortho.bench.task;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.task.DrainFunction;
import dev.ortho.task.Executor;
import dev.ortho.task.Process;
import java.util.concurrent.CompletableFuture;
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
 * The benchmark thread's share of {@link DispatchChainBenchmark}, alone: ns per link to build a
 * chain of {@value #LINKS} dependent processes and retire it, on one thread, no worker involved.
 * A diagnostic (no fair peer runs the same path), but far less noisy on the shared machine than
 * the chain itself.
 *
 * <ul>
 *   <li>{@code ortho}: {@code newProcess(…).build()} per link, {@code addDependent} to the
 *       previous one (as the chain benchmark does), then every process {@code fail}s with a
 *       pre-built error from the last to the first, so each completes inline on this thread.
 *   <li>{@code forkjoin-cf}: the chain benchmark's {@code thenRunAsync(link, pool)} per link (on
 *       the common pool) on an incomplete head, then the head completes exceptionally (every stage completes
 *       inline with the error; no stage runs).
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ProcessBuildBenchmark {
    static final int LINKS = 100;
    private static final StatusException ERROR = new StatusException(StatusCode.CANCELLED, "retired by the benchmark");
    private static final DrainFunction DRAIN = (p, w, r) -> r.complete();
    private static final Runnable LINK = () -> { };

    @Param({"ortho", "forkjoin-cf"})
    public String impl;

    private Executor executor;
    private final Process[] links = new Process[LINKS];

    /** Only Ortho needs its executor running; the peer's stages never run, so any pool will do. */
    @Setup(Level.Trial)
    public void setUp() {
        executor = impl.equals("ortho") ? Pools.ortho() : null;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        Pools.close(executor, null);
    }

    @Benchmark
    @OperationsPerInvocation(LINKS)
    public Object buildAndRetire() {
        if (executor == null) {
            CompletableFuture<Void> head = new CompletableFuture<>();
            CompletableFuture<Void> tail = head;
            for (int i = 0; i < LINKS; i++) {
                tail = tail.thenRunAsync(LINK, ForkJoinPool.commonPool());
            }
            head.completeExceptionally(ERROR);
            return tail;
        }
        Process previous = null;
        for (int i = 0; i < LINKS; i++) {
            Process link = executor.newProcess("link", DRAIN).build();
            if (previous != null) {
                previous.addDependent(link);
            }
            links[i] = link;
            previous = link;
        }
        for (int i = LINKS - 1; i >= 0; i--) {
            links[i].fail(ERROR);
        }
        return previous;
    }
}
