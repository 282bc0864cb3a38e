package dev.ortho.bench.task;

import dev.ortho.task.DrainFunction;
import dev.ortho.task.Executor;
import dev.ortho.task.Process;
import dev.ortho.task.QueueProcess;
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
 * {@value #BATCH} budget-1 units of work submitted from one thread, then awaited; reports units
 * per second. {@code ortho}: a process per unit ({@code newProcess(…).onComplete(…).build()
 * .schedule()}, through the immediate list). {@code ortho-queue}: the same pre-built item
 * submitted {@value #BATCH} times to one {@link QueueProcess} created at set-up (a reusable
 * budget-1 process; items run one at a time on one worker). {@code forkjoin}: {@code execute}
 * of one pre-built runnable per unit (may run on both workers at once).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ImmediateThroughputBenchmark {
    static final int BATCH = 10_000;

    @Param({"ortho", "ortho-queue", "forkjoin"})
    public String impl;

    private Executor executor;
    private QueueProcess queue;
    private ForkJoinPool pool;
    private volatile CountDownLatch latch;
    private final DrainFunction drain = (p, w, r) -> {
        r.complete();
    };
    private final Process.CompletionCallback countDown = (p, e) -> latch.countDown();
    private final Runnable task = () -> latch.countDown();
    private final QueueProcess.Item item = w -> latch.countDown();

    @Setup(Level.Trial)
    public void setUp() {
        if (impl.startsWith("ortho")) {
            executor = Pools.ortho();
            if (impl.equals("ortho-queue")) {
                queue = executor.newQueueProcess("imm").build();
            }
        } else {
            pool = Pools.forkJoin();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        if (queue != null) {
            queue.close();
        }
        Pools.close(executor, pool);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void processes() throws InterruptedException {
        CountDownLatch l = new CountDownLatch(BATCH);
        latch = l;
        if (queue != null) {
            for (int i = 0; i < BATCH; i++) {
                queue.submit(item);
            }
        } else if (executor != null) {
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
