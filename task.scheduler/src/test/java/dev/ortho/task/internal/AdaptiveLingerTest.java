package dev.ortho.task.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.task.Executor;
import dev.ortho.task.ExecutorStats;
import dev.ortho.task.WorkerStates;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 18: the adaptive linger ({@link Executor.Builder#adaptiveLingerNanos}) keeps a worker
 * polling after work only while work keeps coming back within the window, so back-to-back
 * submissions need no wake-up, while an executor that has gone idle, or gets work more slowly
 * than the window, parks and polls nowhere. Explicit fixed lingers keep their behaviour.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AdaptiveLingerTest {
    private static ExecutorImpl build(Executor.Builder builder) {
        return (ExecutorImpl) builder.workerCount(2).spinNanos(0).build();
    }

    private static void runOne(Executor ex, String name) throws InterruptedException {
        CountDownLatch ran = new CountDownLatch(1);
        ex.newProcess(name, (p, w, r) -> {
            ran.countDown();
            r.complete();
        }).build().schedule();
        assertTrue(ran.await(10, TimeUnit.SECONDS), name + " ran");
    }

    private static long wakes(ExecutorStats stats) {
        return stats.workers().stream().mapToLong(ExecutorStats.WorkerStats::wakes).sum();
    }

    @Test
    void backToBackWorkIsTakenByTheLingeringWorkerWithoutWakeUps() throws Exception {
        // a window far longer than the test: every gap between two processes is inside it
        ExecutorImpl ex = build(Executor.builder().name("adaptive").adaptiveLingerNanos(TimeUnit.SECONDS.toNanos(60)));
        try {
            WorkerStates.awaitAll(ex, "PARKED");
            runOne(ex, "first");   // no history yet: the worker parks after it
            WorkerStates.awaitAll(ex, "PARKED");
            runOne(ex, "second");  // came back within the window: the worker lingers after it
            long wakes = wakes(ex.stats());
            for (int i = 0; i < 50; i++) {
                runOne(ex, "p" + i);
            }
            long woken = wakes(ex.stats()) - wakes;
            // Without a linger each of the 50 wakes a parked worker (LingerTest's fixed linger
            // allows the same few benign extra wake-ups: the lingerer gave its token back just
            // before a scheduler could claim it).
            assertTrue(woken < 25, woken + " of 50 back-to-back schedules woke a parked worker: " + ex.stats());
            assertTrue(ex.lingerPolls() > 0, "nobody lingered: " + ex.stats());
        } finally {
            assertTrue(ex.shutdown(Duration.ofSeconds(5)));
        }
    }

    @Test
    void anIdleExecutorsWorkersEndUpParkedAndPollNoMore() throws Exception {
        ExecutorImpl ex = build(Executor.builder().name("adaptive-idle")
                .adaptiveLingerNanos(TimeUnit.MILLISECONDS.toNanos(1)));
        try {
            for (int i = 0; i < 200; i++) {
                runOne(ex, "burst" + i);
            }
            WorkerStates.awaitAll(ex, "PARKED");  // the burst stopped: one window, then park
            long polls = ex.lingerPolls();
            long spins = ex.spinYields();
            Thread.sleep(50);
            assertEquals(polls, ex.lingerPolls(), "an idle executor's workers kept polling: " + ex.stats());
            assertEquals(spins, ex.spinYields(), "an idle executor's workers kept spinning: " + ex.stats());
            WorkerStates.awaitAll(ex, "PARKED");
        } finally {
            assertTrue(ex.shutdown(Duration.ofSeconds(5)));
        }
    }

    @Test
    void workThatComesBackMoreSlowlyThanTheWindowNeverMakesAWorkerLinger() throws Exception {
        ExecutorImpl ex = build(Executor.builder().name("adaptive-slow")
                .adaptiveLingerNanos(TimeUnit.MICROSECONDS.toNanos(100)));
        try {
            for (int i = 0; i < 10; i++) {
                WorkerStates.awaitAll(ex, "PARKED");
                Thread.sleep(20);  // every gap between two processes is at least 200 windows
                runOne(ex, "slow" + i);
            }
            WorkerStates.awaitAll(ex, "PARKED");
            assertEquals(0, ex.lingerPolls(), "a worker lingered: " + ex.stats());
        } finally {
            assertTrue(ex.shutdown(Duration.ofSeconds(5)));
        }
    }

    @Test
    void aFixedLingerStillLingersAfterEveryWorkPhase() throws Exception {
        // lingerNanos after adaptiveLingerNanos: the last call wins, and a fixed linger needs no history
        ExecutorImpl ex = build(Executor.builder().name("fixed").adaptiveLingerNanos(1)
                .lingerNanos(TimeUnit.MILLISECONDS.toNanos(1)));
        try {
            for (int i = 0; i < 5; i++) {
                WorkerStates.awaitAll(ex, "PARKED");
                Thread.sleep(20);
                runOne(ex, "slow" + i);
            }
            WorkerStates.awaitAll(ex, "PARKED");
            assertTrue(ex.lingerPolls() > 0, "the fixed linger never polled: " + ex.stats());
        } finally {
            assertTrue(ex.shutdown(Duration.ofSeconds(5)));
        }
    }

    @Test
    void aZeroLingerNeverPolls() throws Exception {
        for (Executor.Builder builder : new Executor.Builder[] {Executor.builder().name("zero").lingerNanos(0),
                Executor.builder().name("zero-adaptive").adaptiveLingerNanos(0)}) {
            ExecutorImpl ex = build(builder);
            try {
                for (int i = 0; i < 200; i++) {
                    runOne(ex, "p" + i);
                }
                WorkerStates.awaitAll(ex, "PARKED");
                assertEquals(0, ex.lingerPolls(), "a worker lingered: " + ex.stats());
            } finally {
                assertTrue(ex.shutdown(Duration.ofSeconds(5)));
            }
        }
    }

    @Test
    void aNegativeWindowIsRejected() {
        StatusException e = assertThrows(StatusException.class, () -> Executor.builder().adaptiveLingerNanos(-5));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("-5"), e.getMessage());
    }
}
