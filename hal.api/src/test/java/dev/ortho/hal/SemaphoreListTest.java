package dev.ortho.hal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

@org.junit.jupiter.api.Timeout(value = 30, unit = TimeUnit.SECONDS)
class SemaphoreListTest {
    private final TimelineSemaphore a = new TimelineSemaphore("a", 0);
    private final TimelineSemaphore b = new TimelineSemaphore("b", 0);
    private final SemaphoreList both = SemaphoreList.of(new Semaphore[] {a, b}, new long[] {1, 2});

    @Test
    void emptyListIsAlwaysReached() {
        assertTrue(SemaphoreList.empty().poll());
        SemaphoreList.empty().awaitAll(Timeout.immediate());
        assertEquals(-1, SemaphoreList.empty().awaitAny(Timeout.immediate()));
        SemaphoreList.empty().signal();
    }

    @Test
    void mismatchedOrNullEntriesAreInvalidArgument() {
        assertEquals(StatusCode.INVALID_ARGUMENT, assertThrows(StatusException.class,
                () -> SemaphoreList.of(new Semaphore[] {a}, new long[] {1, 2})).code());
        assertEquals(StatusCode.INVALID_ARGUMENT, assertThrows(StatusException.class,
                () -> SemaphoreList.of(new Semaphore[] {null}, new long[] {1})).code());
    }

    @Test
    void signalThenPollAndAwaitAll() {
        assertFalse(both.poll());
        both.signal();
        assertTrue(both.poll());
        both.awaitAll(Timeout.immediate());
        StatusException again = assertThrows(StatusException.class, both::signal);
        assertEquals(StatusCode.INVALID_ARGUMENT, again.code());
        assertTrue(again.getMessage().endsWith("while signalling semaphore list entry 0"), again.getMessage());
    }

    @Test
    void awaitAllTimesOutUntilEveryValueIsReached() {
        a.signal(1);
        assertEquals(StatusCode.DEADLINE_EXCEEDED, assertThrows(StatusException.class,
                () -> both.awaitAll(Timeout.of(Duration.ofMillis(10)))).code());
    }

    @Test
    void awaitAllFailsFastOnAnyFailure() throws Exception {
        Thread failer = new Thread(() -> b.fail(new StatusException(StatusCode.UNAVAILABLE, "gone")));
        failer.start();
        StatusException e = assertThrows(StatusException.class, () -> both.awaitAll(Timeout.infinite()));
        assertEquals(StatusCode.UNAVAILABLE, e.code());
        failer.join();
    }

    @Test
    void awaitAnyReturnsAReachedIndex() throws Exception {
        Thread signaller = new Thread(() -> b.signal(2));
        signaller.start();
        assertEquals(1, both.awaitAny(Timeout.infinite()));
        signaller.join();
    }

    @Test
    void awaitAnyPrefersAReachedTimepointOverAFailedOne() {
        a.fail(new StatusException(StatusCode.ABORTED, "a failed"));
        b.signal(2);
        assertEquals(1, both.awaitAny(Timeout.immediate()));
    }

    @Test
    void awaitAnyReportsTheFailureWhenNothingWasReached() {
        a.fail(new StatusException(StatusCode.ABORTED, "a failed"));
        assertEquals(StatusCode.ABORTED,
                assertThrows(StatusException.class, () -> both.awaitAny(Timeout.infinite())).code());
    }

    @Test
    void failFailsEachSemaphore() {
        both.fail(new StatusException(StatusCode.CANCELLED, "x"));
        assertEquals(StatusCode.CANCELLED, a.failure().code());
        assertEquals(StatusCode.CANCELLED, b.failure().code());
        assertFalse(both.poll());
    }

    /**
     * A synchronous device waits on every queue operation's wait list, which is reached already
     * on the steady path: that wait registers no timepoints and allocates nothing (it built a
     * waiter, a counter and a timepoint array per wait before issue 16's {@code zoo3} work).
     */
    @Test
    void awaitingAReachedListAllocatesNothing() {
        both.signal();
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 10_000; i++) {
                both.awaitAll(Timeout.infinite());
                both.awaitAny(Timeout.infinite());
            }
            best = Math.min(best, threads.getCurrentThreadAllocatedBytes() - before);
        }
        assertTrue(best < 10_000, "20,000 waits on reached timepoints allocated " + best + " bytes");
    }
}
