package dev.ortho.base;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class TimeoutTest {

    @Test
    void sentinelsResolveWithoutAClock() {
        assertSame(Deadline.infinite(), Timeout.infinite().toDeadline());
        assertSame(Deadline.immediate(), Timeout.immediate().toDeadline());
        assertTrue(Timeout.ofNanos(0).isImmediate());
        assertTrue(Timeout.ofNanos(-1).isImmediate());
        assertTrue(Timeout.of(Duration.ofSeconds(Long.MAX_VALUE)).isInfinite());
    }

    @Test
    void relativeTimeoutResolvesFromNow() {
        Timeout t = Timeout.of(Duration.ofMillis(500));
        assertFalse(t.isAbsolute());
        long before = System.nanoTime();
        long deadline = t.toDeadlineNanos();
        long after = System.nanoTime();
        long length = Duration.ofMillis(500).toNanos();
        assertTrue(deadline >= before + length && deadline <= after + length);
    }

    @Test
    void absoluteTimeoutKeepsItsDeadline() {
        Deadline d = Deadline.atNanos(System.nanoTime() + 1_000_000);
        Timeout t = Timeout.until(d);
        assertTrue(t.isAbsolute());
        assertEquals(d, t.toDeadline());
        assertEquals(d.nanos(), t.toDeadlineNanos());
        assertSame(Timeout.infinite(), Timeout.until(Deadline.infinite()));
        assertSame(Timeout.immediate(), Timeout.until(Deadline.immediate()));
    }

    @Test
    void equalityIsByKindAndValue() {
        assertEquals(Timeout.ofNanos(5), Timeout.ofNanos(5));
        assertFalse(Timeout.ofNanos(5).equals(Timeout.until(Deadline.atNanos(5))));
    }
}
