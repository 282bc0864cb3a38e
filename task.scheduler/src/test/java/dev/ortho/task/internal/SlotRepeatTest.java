package dev.ortho.task.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.task.ExecutorStats;
import dev.ortho.task.Process;
import dev.ortho.task.ScanPolicy;
import dev.ortho.task.Topology;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 18 (64-tile chain): a worker draining the only occupied compute slot, with nothing else
 * waiting, calls the drain function again under the same drainer claim instead of leaving the
 * slot and scanning once per call; as soon as anything else waits it scans as before, and every
 * call still checks for cancellation.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SlotRepeatTest {
    private static final int CALLS = 1600;

    private static ExecutorImpl executor(int workers) {
        return new ExecutorImpl("repeat", Topology.ofGroupCount(workers), workers, 0, ScanPolicy.ROUND_ROBIN);
    }

    private static long scans(ExecutorImpl ex) {
        return ex.stats().workers().stream().mapToLong(ExecutorStats.WorkerStats::scans).sum();
    }

    /** A compute process that does one unit of work per call and completes after {@code calls} calls. */
    private static Process counting(ExecutorImpl ex, String name, int calls, AtomicInteger count, CountDownLatch done) {
        return ex.newProcess(name, (p, w, r) -> {
            if (count.incrementAndGet() >= calls) {
                r.complete();
            } else {
                r.didWork();
            }
        }).computeSlot().onRelease(p -> done.countDown()).build();
    }

    @Test
    void aComputeProcessAloneIsDrainedManyTimesPerScan() throws InterruptedException {
        ExecutorImpl ex = executor(1);
        try {
            long before = scans(ex);
            AtomicInteger count = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(1);
            counting(ex, "alone", CALLS, count, done).schedule();
            assertTrue(done.await(10, TimeUnit.SECONDS));
            assertEquals(CALLS, count.get());
            long scans = scans(ex) - before;
            // Before: one scan per drain call (≥ 1600). Now one per 16 calls, plus idle passes.
            assertTrue(scans < CALLS / 4, "scans " + scans + " for " + CALLS + " calls: " + ex.stats());
        } finally {
            assertTrue(ex.shutdown(Duration.ofSeconds(5)));
        }
    }

    /** Two compute processes on one worker: neither is alone, so every call takes its own scan. */
    @Test
    void twoComputeProcessesAreNotDrainedTwicePerScan() throws InterruptedException {
        ExecutorImpl ex = executor(1);
        try {
            CountDownLatch started = new CountDownLatch(2);
            CountDownLatch done = new CountDownLatch(2);
            AtomicInteger worked = new AtomicInteger();
            AtomicLong scansAtStart = new AtomicLong(-1);
            for (String name : new String[] {"a", "b"}) {
                AtomicBoolean counted = new AtomicBoolean();
                AtomicInteger calls = new AtomicInteger();
                ex.newProcess(name, (p, w, r) -> {
                    if (counted.compareAndSet(false, true)) {
                        started.countDown();
                    }
                    if (started.getCount() > 0) {
                        r.keepActive(); // until the other one is placed too
                        return;
                    }
                    scansAtStart.compareAndSet(-1, scans(ex));
                    worked.incrementAndGet();
                    if (calls.incrementAndGet() >= 400) {
                        r.complete();
                    } else {
                        r.didWork();
                    }
                }).computeSlot().onRelease(p -> done.countDown()).build().schedule();
            }
            assertTrue(done.await(10, TimeUnit.SECONDS));
            long scans = scans(ex) - scansAtStart.get();
            // Once one has completed the other is alone and may repeat: count only until then.
            assertTrue(scans >= 400, "scans " + scans + " for " + worked.get() + " calls");
        } finally {
            assertTrue(ex.shutdown(Duration.ofSeconds(5)));
        }
    }

    @Test
    void aBusyComputeProcessAloneIsStillCancelled() throws InterruptedException {
        ExecutorImpl ex = executor(2);
        try {
            CountDownLatch running = new CountDownLatch(1);
            CountDownLatch released = new CountDownLatch(1);
            Process p = ex.newProcess("forever", (proc, w, r) -> {
                running.countDown();
                r.didWork();
            }).computeSlot().wakeBudget(2).onRelease(proc -> released.countDown()).build();
            p.schedule();
            assertTrue(running.await(10, TimeUnit.SECONDS));
            p.cancel();
            assertTrue(released.await(10, TimeUnit.SECONDS), "a process drained again and again still stops");
            assertEquals(Process.State.CANCELLED, p.state());
            assertEquals(StatusCode.CANCELLED, p.error().code());
        } finally {
            assertTrue(ex.shutdown(Duration.ofSeconds(5)));
        }
    }

    /**
     * The interleaving behind a rare failure of the test above ("expected CANCELLED, was
     * COMPLETED"): {@code cancel} records its error before it moves the state, and a worker that
     * bails on that error claims completion in between. The process must read CANCELLED.
     */
    @Test
    void aCompletionClaimedBetweenCancelsErrorAndItsStateIsCancelled() {
        ExecutorImpl ex = executor(1);
        try {
            ProcessImpl p = (ProcessImpl) ex.newProcess("claimed", (proc, w, r) -> { }).build();
            assertTrue(p.casState(ProcessImpl.STATE_SUSPENDED, ProcessImpl.STATE_RUNNABLE));
            p.casError(new dev.ortho.base.StatusException(StatusCode.CANCELLED, "process 'claimed' was cancelled"));
            assertTrue(p.tryClaimCompletion(), "the worker's claim");
            p.runCompletion(null); // what the claiming worker does next
            assertEquals(Process.State.CANCELLED, p.state());
            p.cancel(); // the cancel's own state step now finds the process terminal
            assertEquals(Process.State.CANCELLED, p.state());
            assertEquals(StatusCode.CANCELLED, p.error().code());
        } finally {
            assertTrue(ex.shutdown(Duration.ofSeconds(5)));
        }
    }
}
