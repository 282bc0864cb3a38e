package dev.ortho.bench.task;

import dev.ortho.task.Executor;
import java.time.Duration;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

/** Creates the two peers with the same number of threads. */
final class Pools {
    private Pools() {
    }

    static int threads() {
        return Math.max(1, Runtime.getRuntime().availableProcessors());
    }

    static Executor ortho() {
        return Executor.builder().workerCount(threads()).name("bench").build();
    }

    static ForkJoinPool forkJoin() {
        return new ForkJoinPool(threads());
    }

    static void close(Executor executor, ForkJoinPool pool) throws InterruptedException {
        if (executor != null) {
            executor.shutdown(Duration.ofSeconds(10));
        }
        if (pool != null) {
            pool.shutdown();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
    }
}
