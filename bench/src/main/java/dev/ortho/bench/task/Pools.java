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

    /**
     * Ortho's executor with the builder's defaults; the system property
     * {@code ortho.bench.spinNanos} overrides the idle spin (for experiments such as
     * {@code -Dortho.bench.spinNanos=0}).
     */
    static Executor ortho() {
        Executor.Builder b = Executor.builder().workerCount(threads()).name("bench");
        String spin = System.getProperty("ortho.bench.spinNanos");
        if (spin != null) {
            b.spinNanos(Long.parseLong(spin));
        }
        return b.build();
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
