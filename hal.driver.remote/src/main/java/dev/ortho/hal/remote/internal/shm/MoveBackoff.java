package dev.ortho.hal.remote.internal.shm;

import java.util.concurrent.TimeUnit;

/**
 * When a worker's pump that found itself on its client's CPU may move off it again
 * ({@link MailboxTransport}): a move to an idle CPU costs the pump about 0.1 ms on the machine
 * measured, one to a CPU another thread keeps busy a scheduler slice (1–6 ms; bench/README.md).
 * So moves are at least {@link #MIN_INTERVAL_NANOS} apart, and each move that cost
 * {@link #SLOW_MOVE_NANOS} or more doubles the interval up to {@link #MAX_INTERVAL_NANOS}; a
 * cheap move resets it. The maximum is short: a pump left beside its client costs each round
 * trip a wake-up (12–40 µs), so one in a hundred round trips is that slow after about 25 ms of
 * it in a run of 100,000 (with a maximum of 128 ms two runs of four had p99 27 µs; with 4 ms,
 * and with a fixed 1 ms, none of seven went over 10 µs). Not thread-safe: the pump's own.
 */
final class MoveBackoff {
    static final long MIN_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    static final long MAX_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(4);
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
