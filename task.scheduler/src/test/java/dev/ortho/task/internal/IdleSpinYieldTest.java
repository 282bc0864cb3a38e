package dev.ortho.task.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.task.ScanPolicy;
import dev.ortho.task.Topology;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 18: a worker's idle spin yields its core between polls. The worker goes idle right after
 * the completion whose callback woke the thread waiting for the result; a busy spin kept that
 * thread from the core when the kernel queued it there (the dispatch chain's hand-back). The
 * counter only moves on the yielding poll, so this fails on the busy spin.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class IdleSpinYieldTest {
    @Test
    void theIdleSpinYieldsBetweenPolls() throws Exception {
        ExecutorImpl ex = new ExecutorImpl("yield", Topology.ofGroupCount(1), 1, TimeUnit.SECONDS.toNanos(60),
                ScanPolicy.ROUND_ROBIN);
        try {
            CountDownLatch done = new CountDownLatch(1);
            ex.newProcess("p", (p, w, r) -> r.complete()).onComplete((p, e) -> done.countDown()).build().schedule();
            assertTrue(done.await(10, TimeUnit.SECONDS));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (ex.spinYields() == 0) {
                assertTrue(System.nanoTime() < deadline, "the spinning worker never yielded: " + ex.stats());
                Thread.sleep(1);
            }
            assertEquals("SPINNING", ex.stats().workers().get(0).state());
        } finally {
            assertTrue(ex.shutdown(Duration.ofSeconds(5)));
        }
    }
}
