package dev.ortho.hal.remote.internal.shm;

import java.util.concurrent.TimeUnit;

/**
 * When a worker's pump that found itself on its client's CPU may move off it again
 * ({@link MailboxTransport}): a move to an idle CPU costs the pump about 0.1 ms on the machine
 * measured, one to a CPU another thread keeps busy a scheduler slice (1–6 ms; bench/README.md).
 * So moves are at least {@link #MIN_INTERVAL_NANOS} apart, and each move that cost
 * {@link #SLOW_MOVE_NANOS} or more doubles the interval up to {@link #MAX_INTERVAL_NANOS}: where
 * the other CPUs stay busy the pump stops paying for moves that do not help; a cheap move
 * resets it. Not thread-safe: the pump's own.
 */
final class MoveBackoff {
    static final long MIN_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    static final long MAX_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(128);
    static final long SLOW_MOVE_NANOS = TimeUnit.MICROSECONDS.toNanos(500);

    private long interval = MIN_INTERVAL_NANOS;
    private long last;
    private boolean any;

    /** Whether a move may be tried at {@code now} ({@link System#nanoTime()}). */
    boolean mayMove(long now) {
        return !any || now - last >= interval;
    }

    /** A move was tried at {@code start} and took {@code costNanos} (a failed try counts as slow). */
    void tried(long start, long costNanos, boolean moved) {
        any = true;
        last = start;
        interval = moved && costNanos < SLOW_MOVE_NANOS ? MIN_INTERVAL_NANOS
                : Math.min(MAX_INTERVAL_NANOS, interval * 2);
    }

    /** The least time until the next move (tests, diagnostics). */
    long intervalNanos() {
        return interval;
    }
}
