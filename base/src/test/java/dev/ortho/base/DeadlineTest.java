package dev.ortho.base;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DeadlineTest {

    @Test
    void infiniteNeverExpires() {
        Deadline d = Deadline.infinite();
        assertTrue(d.isInfinite());
        assertFalse(d.hasExpired());
        assertEquals(Long.MAX_VALUE, d.remainingNanos());
        assertSame(d, Deadline.atNanos(Deadline.INFINITE_FUTURE_NANOS));
    }

    @Test
    void immediateHasAlwaysExpired() {
        Deadline d = Deadline.immediate();
        assertTrue(d.isImmediate());
        assertTrue(d.hasExpired());
        assertEquals(0, d.remainingNanos());
        assertSame(d, Deadline.afterNanos(0));
        assertSame(d, Deadline.afterNanos(-5));
    }

    @Test
    void relativeDeadlineIsInTheFutureAndCountsDown() {
        long before = System.nanoTime();
        Deadline d = Deadline.after(Duration.ofSeconds(30));
        assertTrue(d.nanos() >= before + Duration.ofSeconds(30).toNanos());
        assertFalse(d.hasExpired());
        long remaining = d.remainingNanos();
        assertTrue(remaining > 0 && remaining <= Duration.ofSeconds(30).toNanos());
    }

    @Test
    void pastAbsoluteDeadlineHasExpired() {
        Deadline d = Deadline.atNanos(System.nanoTime() - 1_000);
        assertTrue(d.hasExpired());
        assertEquals(0, d.remainingNanos());
    }

    @Test
    void arithmeticSaturatesInsteadOfOverflowing() {
        assertEquals(Deadline.INFINITE_FUTURE_NANOS, Deadline.deadlineNanosAfter(Long.MAX_VALUE - 1, 10));
        assertEquals(Deadline.INFINITE_FUTURE_NANOS, Deadline.deadlineNanosAfter(Long.MAX_VALUE, 10));
        assertEquals(110, Deadline.deadlineNanosAfter(100, 10));
        assertTrue(Deadline.after(Duration.ofSeconds(Long.MAX_VALUE)).isInfinite());
        assertTrue(Deadline.after(Duration.ofSeconds(Long.MIN_VALUE)).isImmediate());
        assertEquals(0, Deadline.remainingNanos(5, 10));
        assertEquals(5, Deadline.remainingNanos(15, 10));
        assertEquals(Long.MAX_VALUE, Deadline.remainingNanos(Long.MAX_VALUE - 1, Long.MIN_VALUE + 1));
    }
}
