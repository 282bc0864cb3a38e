package dev.ortho.task;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

/** Test helper: waits (bounded) until every worker of an executor reports one state. */
public final class WorkerStates {
    private WorkerStates() {
    }

    /** Polls {@link Executor#stats()} until every worker is in {@code state}; fails after 10 s. */
    public static void awaitAll(Executor ex, String state) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!ex.stats().workers().stream().allMatch(w -> w.state().equals(state))) {
            assertTrue(System.nanoTime() < deadline, "workers never reached " + state + ": " + ex.stats());
            Thread.sleep(1);
        }
    }
}
