package dev.ortho.hal.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.Timepoint;
import dev.ortho.hal.frontier.Axis;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.frontier.SemaphoreScope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout.ThreadMode;

@org.junit.jupiter.api.Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class TimelineSemaphoreTest {

    @Test
    void signalAdvancesAndQueryReads() {
        TimelineSemaphore s = new TimelineSemaphore("s", 0);
        assertEquals(0, s.query());
        s.signal(1);
        s.signal(5);
        assertEquals(5, s.query());
        assertNull(s.failure());
    }

    @Test
    void signallingBackwardOrToTheSameValueIsInvalidArgument() {
        TimelineSemaphore s = new TimelineSemaphore("q0", 3);
        StatusException same = assertThrows(StatusException.class, () -> s.signal(3));
        assertEquals(StatusCode.INVALID_ARGUMENT, same.code());
        assertEquals("semaphore 'q0' cannot be signalled to 3: it is already at 3", same.getMessage());
        assertEquals(StatusCode.INVALID_ARGUMENT, assertThrows(StatusException.class, () -> s.signal(2)).code());
        assertEquals(3, s.query());
    }

    @Test
    void valuesOutsideIreesRangeAreOutOfRange() {
        assertEquals(StatusCode.OUT_OF_RANGE,
                assertThrows(StatusException.class, () -> new TimelineSemaphore("s", -1)).code());
        TimelineSemaphore s = new TimelineSemaphore("s", 0);
        assertEquals(StatusCode.OUT_OF_RANGE,
                assertThrows(StatusException.class, () -> s.signal(Semaphore.MAX_VALUE + 1)).code());
        s.signal(Semaphore.MAX_VALUE);
        assertEquals(2147483646L, s.query());
    }

    @Test
    void failureIsStickyFirstWinsAndEachReaderGetsItsOwnCopy() {
        TimelineSemaphore s = new TimelineSemaphore("s", 1);
        StatusException first = new StatusException(StatusCode.DATA_LOSS, "device lost");
        s.fail(first);
        s.fail(new StatusException(StatusCode.ABORTED, "second"));
        assertSame(first, s.failure());
        StatusException seen = assertThrows(StatusException.class, s::query);
        assertEquals(StatusCode.DATA_LOSS, seen.code());
        assertEquals("device lost", seen.getMessage());
        assertNotSame(first, seen);
        assertSame(first, seen.getCause());
        assertEquals(StatusCode.DATA_LOSS, assertThrows(StatusException.class, () -> s.signal(2)).code());
        assertEquals(StatusCode.DATA_LOSS,
                assertThrows(StatusException.class, () -> s.await(2, Timeout.infinite())).code());
    }

    @Test
    void awaitOnAReachedValueReturnsAtOnceAndImmediateTimeoutPolls() {
        TimelineSemaphore s = new TimelineSemaphore("s", 4);
        s.await(4, Timeout.immediate());
        StatusException e = assertThrows(StatusException.class, () -> s.await(5, Timeout.immediate()));
        assertEquals(StatusCode.DEADLINE_EXCEEDED, e.code());
        assertEquals("semaphore 's' did not reach 5 in time (at 4)", e.getMessage());
    }

    @Test
    void awaitTimesOutWithDeadlineExceeded() {
        TimelineSemaphore s = new TimelineSemaphore("s", 0);
        assertEquals(StatusCode.DEADLINE_EXCEEDED, assertThrows(StatusException.class,
                () -> s.await(1, Timeout.of(Duration.ofMillis(20)))).code());
        s.signal(1); // the cancelled waiter left nothing behind
        assertEquals(1, s.query());
    }

    @Test
    void awaitWakesWhenAnotherThreadSignals() throws Exception {
        TimelineSemaphore s = new TimelineSemaphore("s", 0);
        Thread signaller = new Thread(() -> {
            for (int v = 1; v <= 3; v++) {
                s.signal(v);
            }
        });
        signaller.start();
        s.await(3, Timeout.infinite());
        signaller.join();
        assertEquals(3, s.query());
    }

    @Test
    void awaitWakesWithTheFailure() throws Exception {
        TimelineSemaphore s = new TimelineSemaphore("s", 0);
        Thread failer = new Thread(() -> s.fail(new StatusException(StatusCode.UNAVAILABLE, "peer gone")));
        AtomicReference<StatusException> seen = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                s.await(10, Timeout.infinite());
            } catch (StatusException e) {
                seen.set(e);
            }
        });
        waiter.start();
        Thread.sleep(20);
        failer.start();
        waiter.join();
        assertEquals(StatusCode.UNAVAILABLE, seen.get().code());
    }

    @Test
    void interruptedWaitIsAborted() throws Exception {
        TimelineSemaphore s = new TimelineSemaphore("s", 0);
        AtomicReference<StatusException> seen = new AtomicReference<>();
        AtomicReference<Boolean> flag = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                s.await(1, Timeout.infinite());
            } catch (StatusException e) {
                seen.set(e);
                flag.set(Thread.currentThread().isInterrupted());
            }
        });
        waiter.start();
        Thread.sleep(20);
        waiter.interrupt();
        waiter.join();
        assertEquals(StatusCode.ABORTED, seen.get().code());
        assertTrue(flag.get(), "the interrupt flag stays set");
    }

    @Test
    void timepointsFireOnTheSignallingThreadAtTheirValue() {
        TimelineSemaphore s = new TimelineSemaphore("s", 0);
        List<String> fired = new ArrayList<>();
        s.addTimepoint(2, (sem, v, f) -> fired.add("2:" + Thread.currentThread().getName() + ":" + f));
        s.addTimepoint(5, (sem, v, f) -> fired.add("5"));
        s.signal(1);
        assertTrue(fired.isEmpty());
        s.signal(3);
        assertEquals(List.of("2:" + Thread.currentThread().getName() + ":null"), fired);
        s.signal(9);
        assertEquals(List.of("2:" + Thread.currentThread().getName() + ":null", "5"), fired);
    }

    @Test
    void timepointForAReachedValueFiresInline() {
        TimelineSemaphore s = new TimelineSemaphore("s", 7);
        AtomicInteger calls = new AtomicInteger();
        Timepoint t = s.addTimepoint(7, (sem, v, f) -> calls.incrementAndGet());
        assertEquals(1, calls.get());
        assertFalse(t.cancel(), "a fired timepoint cannot be cancelled");
    }

    @Test
    void cancelledTimepointNeverFires() {
        TimelineSemaphore s = new TimelineSemaphore("s", 0);
        AtomicInteger calls = new AtomicInteger();
        Timepoint t = s.addTimepoint(1, (sem, v, f) -> calls.incrementAndGet());
        assertTrue(t.cancel());
        assertFalse(t.cancel());
        s.signal(1);
        assertEquals(0, calls.get());
    }

    @Test
    void timepointsGetTheFailureAndDestroyCancelsThem() {
        TimelineSemaphore failed = new TimelineSemaphore("f", 0);
        AtomicReference<StatusException> onFail = new AtomicReference<>();
        failed.addTimepoint(1, (sem, v, f) -> onFail.set(f));
        StatusException status = new StatusException(StatusCode.INTERNAL, "kernel crashed");
        failed.fail(status);
        assertSame(status, onFail.get());

        TimelineSemaphore dropped = new TimelineSemaphore("d", 0);
        AtomicReference<StatusException> onDestroy = new AtomicReference<>();
        dropped.addTimepoint(1, (sem, v, f) -> onDestroy.set(f));
        dropped.retain();
        dropped.release();
        assertNull(onDestroy.get(), "one reference is still held");
        dropped.close();
        assertEquals(StatusCode.CANCELLED, onDestroy.get().code());
        assertEquals(StatusCode.FAILED_PRECONDITION, assertThrows(StatusException.class, dropped::release).code());
    }

    @Test
    void callbacksMayChainSignalsAndAThrowingCallbackDoesNotBreakTheSignaller() {
        TimelineSemaphore a = new TimelineSemaphore("a", 0);
        TimelineSemaphore b = new TimelineSemaphore("b", 0);
        a.addTimepoint(1, (sem, v, f) -> {
            throw new IllegalStateException("user bug");
        });
        a.addTimepoint(1, (sem, v, f) -> b.signal(10));
        a.addTimepoint(1, (sem, v, f) -> sem.signal(2)); // re-entrant signal of the same semaphore
        a.signal(1);
        assertEquals(10, b.query());
        assertEquals(2, a.query());
    }

    @Test
    void noTimepointIsLostWhenAddsRaceWithSignals() throws Exception {
        int rounds = 20_000;
        TimelineSemaphore s = new TimelineSemaphore("race", 0);
        AtomicInteger fired = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        Thread adder = new Thread(() -> {
            try {
                start.await();
            } catch (InterruptedException e) {
                return;
            }
            for (int v = 1; v <= rounds; v++) {
                s.addTimepoint(v, (sem, value, f) -> fired.incrementAndGet());
            }
        });
        adder.start();
        start.countDown();
        for (int v = 1; v <= rounds; v++) {
            s.signal(v);
        }
        adder.join();
        assertEquals(rounds, fired.get(), "every timepoint fires exactly once");
    }

    @Test
    void manyWaitersAllWake() throws Exception {
        TimelineSemaphore s = new TimelineSemaphore("s", 0);
        int waiters = 16;
        CountDownLatch woke = new CountDownLatch(waiters);
        for (int i = 0; i < waiters; i++) {
            long target = 1 + i % 4;
            Thread t = new Thread(() -> {
                s.await(target, Timeout.infinite());
                woke.countDown();
            });
            t.setDaemon(true);
            t.start();
        }
        for (int v = 1; v <= 4; v++) {
            Thread.sleep(2);
            s.signal(v);
        }
        assertTrue(woke.await(10, TimeUnit.SECONDS));
    }

    @Test
    void aWaiterImportsTheFrontierOfTheValueItWaitedForNotTheLatest() {
        TimelineSemaphore s = new TimelineSemaphore("s", 0);
        long q0 = Axis.queue(0, 0, 0, 0);
        long q1 = Axis.queue(0, 0, 0, 1);
        Frontier two = new Frontier(4);
        two.insertOrRaise(q0, 2);
        Frontier five = new Frontier(4);
        five.insertOrRaise(q0, 5);
        five.insertOrRaise(q1, 9);
        s.signal(2, two);
        s.signal(5, five);
        Frontier out = new Frontier(4);
        assertTrue(s.frontierAt(2, out));
        assertEquals(two, out);
        assertTrue(s.frontierAt(3, out), "3 was satisfied by the signal of 5");
        assertEquals(five, out);
        assertFalse(s.frontierAt(6, out), "not reached yet");
        assertEquals(five, out, "unchanged when not reached");
    }

    @Test
    void withoutTrackingAReachedValueClaimsNoKnowledge() {
        TimelineSemaphore s = new TimelineSemaphore("s", 0, 0, 0);
        Frontier f = new Frontier(2);
        f.insertOrRaise(Axis.queue(0, 0, 0, 0), 1);
        s.signal(1, f);
        Frontier out = new Frontier(2);
        assertTrue(s.frontierAt(1, out));
        assertTrue(out.isTainted());
        assertEquals(0, out.size());
        assertEquals(StatusCode.INVALID_ARGUMENT,
                assertThrows(StatusException.class, () -> new TimelineSemaphore("s", 0, -1, 1)).code());
    }

    @Test
    void frontierQueriesOnAFailedSemaphoreReportTheFailure() {
        TimelineSemaphore s = new TimelineSemaphore("s", 0);
        s.fail(new StatusException(StatusCode.ABORTED, "x"));
        assertEquals(StatusCode.ABORTED,
                assertThrows(StatusException.class, () -> s.frontierAt(0, new Frontier(1))).code());
    }

    @Test
    void queueLocalSemaphoresRecordNoFrontiersWiderOnesDo() {
        Frontier signalled = new Frontier(2);
        signalled.insertOrRaise(Axis.queue(0, 0, 1, 1), 4);
        TimelineSemaphore local = new TimelineSemaphore("local", 0, SemaphoreScope.QUEUE_LOCAL);
        TimelineSemaphore device = new TimelineSemaphore("device", 0, SemaphoreScope.DEVICE);
        assertEquals(SemaphoreScope.QUEUE_LOCAL, local.scope());
        assertEquals(SemaphoreScope.DEVICE, device.scope());
        assertEquals(SemaphoreScope.PROCESS, new TimelineSemaphore("host", 0).scope());
        local.signal(1, signalled);
        device.signal(1, signalled);
        Frontier out = new Frontier(2);
        assertTrue(local.frontierAt(1, out));
        assertTrue(out.isEmpty() && out.isTainted(), "queue-local: reached, but claims no knowledge");
        assertTrue(device.frontierAt(1, out));
        assertEquals(signalled, out);
        assertEquals(StatusCode.INVALID_ARGUMENT,
                assertThrows(StatusException.class, () -> new TimelineSemaphore("x", 0, null)).code());
    }

    @Test
    void externalSignalsTaintTheirValueUntilAWitnessedSignalPassesIt() {
        Frontier witnessed = new Frontier(2);
        witnessed.insertOrRaise(Axis.queue(0, 0, 0, 0), 1);
        TimelineSemaphore s = new TimelineSemaphore("imported", 0, SemaphoreScope.SYSTEM);
        s.signal(1, witnessed);
        s.signalExternal(2, witnessed);
        assertEquals(2, s.query());
        assertFalse(s.isValueTainted(1));
        assertTrue(s.isValueTainted(2));
        Frontier out = new Frontier(2);
        assertTrue(s.frontierAt(2, out));
        assertTrue(out.isTainted(), "an external value's frontier never claims full knowledge");
        s.signal(3, witnessed);
        assertFalse(s.isValueTainted(3), "a witnessed signal past the external one recovers");
        assertEquals(StatusCode.INVALID_ARGUMENT,
                assertThrows(StatusException.class, () -> s.signalExternal(3, null)).code());
        TimelineSemaphore untracked = new TimelineSemaphore("local", 0, SemaphoreScope.QUEUE_LOCAL);
        untracked.signalExternal(1, null);
        assertEquals(1, untracked.query());
        assertTrue(untracked.isValueTainted(1));
    }

    /** A semaphore released with no timepoint left made a CANCELLED exception (stack trace and all) for nobody. */
    @Test
    void releasingASemaphoreWithoutTimepointsMakesNoStatus() {
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        Runnable work = () -> {
            for (int k = 0; k < 1000; k++) {
                TimelineSemaphore s = new TimelineSemaphore("fence", 0, SemaphoreScope.QUEUE_LOCAL);
                s.signal(1);
                s.release();
            }
        };
        work.run();
        long before = threads.getCurrentThreadAllocatedBytes();
        work.run();
        long perSemaphore = (threads.getCurrentThreadAllocatedBytes() - before) / 1000;
        assertTrue(perSemaphore < 400, "create, signal and release allocate " + perSemaphore + " bytes");
    }

    /**
     * Issue 16: a tracked semaphore signalled only without frontiers (a fence's semaphore on
     * local-sync, several per call) makes no frontier table; it answers as one would (every value
     * reached has the empty untainted frontier), and the first signal with a frontier makes the
     * table from there on. Before, every PROCESS-scope semaphore made its table (its ring of 8
     * values, ~200 bytes) when created.
     */
    @Test
    void aSemaphoreSignalledWithoutFrontiersMakesNoTableAndAnswersAsOne() {
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int k = 0; k < 1000; k++) {
                TimelineSemaphore s = new TimelineSemaphore("fence ", k, 0, SemaphoreScope.PROCESS);
                s.signal(1);
                s.release();
            }
            best = Math.min(best, (threads.getCurrentThreadAllocatedBytes() - before) / 1000);
        }
        assertTrue(best < 150, "create, signal and release allocate " + best + " bytes");

        TimelineSemaphore s = new TimelineSemaphore("s", 0, 2, 4);
        assertTrue(s.isValueTainted(1), "not reached");
        for (long v = 1; v <= 5; v++) {
            s.signal(v);
        }
        Frontier out = new Frontier(4);
        out.insertOrRaise(Axis.queue(0, 0, 0, 3), 1);
        out.markTainted();
        assertTrue(s.frontierAt(1, out));
        assertTrue(out.isEmpty() && !out.isTainted(), "every value so far: the empty untainted frontier");
        assertFalse(s.isValueTainted(5));
        assertTrue(s.isValueTainted(6));
        assertFalse(s.frontierAt(6, out));
        Frontier six = new Frontier(4);
        six.insertOrRaise(Axis.queue(0, 0, 0, 1), 6);
        s.signal(6, six);
        assertTrue(s.frontierAt(6, out));
        assertEquals(six, out);
        assertTrue(s.frontierAt(3, out));
        assertTrue(out.isEmpty() && !out.isTainted(), "values before the table keep their empty frontier");
        s.signal(7);
        s.signal(8); // the table keeps 2 values: 6 is pruned now
        assertTrue(s.frontierAt(6, out));
        assertTrue(out.isTainted(), "a pruned value's frontier is unknown");
        TimelineSemaphore external = new TimelineSemaphore("e", 0, 2, 4);
        external.signalExternal(1, null);
        assertTrue(external.isValueTainted(1), "an external first signal makes the table and taints its value");
        assertTrue(external.frontierAt(1, out));
        assertTrue(out.isTainted());
        assertEquals(StatusCode.OUT_OF_RANGE, assertThrows(StatusException.class,
                () -> new TimelineSemaphore("big", 0, 1 << 17, 4)).code(), "capacities are checked when created");
    }

    /**
     * A semaphore named by prefix and number (a device's per-fence semaphores) shows the whole
     * name wherever it is named, though the text is built only then.
     */
    @Test
    void aSemaphoreNamedByPrefixAndNumberShowsTheWholeName() {
        TimelineSemaphore s = new TimelineSemaphore("cpu0 semaphore ", 17, 0, SemaphoreScope.PROCESS);
        assertTrue(s.toString().startsWith("semaphore 'cpu0 semaphore 17' @0"), s.toString());
        s.signal(3);
        StatusException back = assertThrows(StatusException.class, () -> s.signal(2));
        assertTrue(back.getMessage().contains("semaphore 'cpu0 semaphore 17'"), back.getMessage());
        StatusException scope = assertThrows(StatusException.class,
                () -> new TimelineSemaphore("cpu0 semaphore ", 18, 0, null));
        assertEquals(StatusCode.INVALID_ARGUMENT, scope.code());
        assertTrue(scope.getMessage().contains("'cpu0 semaphore 18' scope is null"), scope.getMessage());
        assertTrue(new TimelineSemaphore("plain", 0, SemaphoreScope.DEVICE).toString().contains("'plain'"));
    }
}
