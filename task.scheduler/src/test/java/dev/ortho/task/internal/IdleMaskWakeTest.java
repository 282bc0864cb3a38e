package dev.ortho.task.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.task.Process;
import dev.ortho.task.ScanPolicy;
import dev.ortho.task.WorkerStates;
import dev.ortho.task.Topology;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 18: a spinning worker holds no idle bit, so a scheduler that finds one spinning neither
 * claims the shared idle mask (a CAS on a line every worker wrote) nor unparks anybody; the
 * spinner finds the work itself. Before, every idle phase set the bit and every schedule claimed
 * it back.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class IdleMaskWakeTest {
    @Test
    void spinningWorkersHoldNoIdleBitAndNeedNoWake() throws Exception {
        // a spin far longer than the test: the workers stay SPINNING throughout
        ExecutorImpl ex = new ExecutorImpl("spin", Topology.ofGroupCount(2), 2, TimeUnit.SECONDS.toNanos(60),
                ScanPolicy.ROUND_ROBIN);
        try {
            WorkerStates.awaitAll(ex, "SPINNING");
            assertEquals(0, ex.idleMask.idleCount(), "spinning workers must not hold idle bits");
            for (int i = 0; i < 100; i++) {
                CountDownLatch ran = new CountDownLatch(1);
                Process p = ex.newProcess("p" + i, (proc, w, r) -> {
                    ran.countDown();
                    r.complete();
                }).build();
                p.schedule();
                assertTrue(ran.await(10, TimeUnit.SECONDS), "a spinning worker found the process");
            }
            long wakes = ex.stats().workers().stream().mapToLong(w -> w.wakes()).sum();
            long parks = ex.stats().workers().stream().mapToLong(w -> w.parks()).sum();
            assertEquals(0, parks, "nobody parked");
            assertEquals(0, wakes, "nobody was claimed from the idle mask");
        } finally {
            assertTrue(ex.shutdown(Duration.ofSeconds(5)));
        }
    }

    @Test
    void parkedWorkersAreClaimedAndWoken() throws Exception {
        ExecutorImpl ex = new ExecutorImpl("park", Topology.ofGroupCount(2), 2, 0, ScanPolicy.ROUND_ROBIN);
        try {
            for (int i = 0; i < 20; i++) {
                WorkerStates.awaitAll(ex, "PARKED");
                assertEquals(2, ex.idleMask.idleCount(), "parked workers hold their idle bits");
                CountDownLatch ran = new CountDownLatch(1);
                ex.newProcess("p" + i, (proc, w, r) -> {
                    ran.countDown();
                    r.complete();
                }).build().schedule();
                assertTrue(ran.await(10, TimeUnit.SECONDS), "a parked worker was woken");
            }
        } finally {
            assertTrue(ex.shutdown(Duration.ofSeconds(5)));
        }
    }
}
