package dev.ortho.base;

import java.time.Duration;

/**
 * How long a wait may take, given either as a duration relative to when the wait starts or as an
 * absolute {@link Deadline} — IREE's {@code iree_timeout_t}.
 *
 * <p>A relative timeout is resolved to a deadline once, when an operation begins
 * ({@link #toDeadline()}), so a wait that loops (spurious wake-ups, several semaphores) never
 * extends its own limit.
 *
 * <p>Immutable; thread-safe.
 */
public final class Timeout {
    private static final Timeout IMMEDIATE = new Timeout(false, 0);
    private static final Timeout INFINITE = new Timeout(false, Long.MAX_VALUE);

    private final boolean absolute;
    /** Relative: a duration in nanos (0 = immediate, MAX = infinite). Absolute: raw deadline. */
    private final long nanos;

    private Timeout(boolean absolute, long nanos) {
        this.absolute = absolute;
        this.nanos = nanos;
    }

    /** Do not wait at all: check once and report {@code DEADLINE_EXCEEDED} if not ready. */
    public static Timeout immediate() {
        return IMMEDIATE;
    }

    /** Wait as long as it takes. */
    public static Timeout infinite() {
        return INFINITE;
    }

    /** Wait at most {@code relativeNanos} from the start of the operation; ≤ 0 means immediate. */
    public static Timeout ofNanos(long relativeNanos) {
        if (relativeNanos <= 0) {
            return IMMEDIATE;
        }
        if (relativeNanos == Long.MAX_VALUE) {
            return INFINITE;
        }
        return new Timeout(false, relativeNanos);
    }

    /** Wait at most {@code duration} from the start of the operation. */
    public static Timeout of(Duration duration) {
        return ofNanos(Deadline.saturatedNanos(duration));
    }

    /** Wait until {@code deadline}, an absolute point in time. */
    public static Timeout until(Deadline deadline) {
        if (deadline.isInfinite()) {
            return INFINITE;
        }
        if (deadline.isImmediate()) {
            return IMMEDIATE;
        }
        return new Timeout(true, deadline.nanos());
    }

    /** Whether this timeout never expires. */
    public boolean isInfinite() {
        return !absolute && nanos == Long.MAX_VALUE;
    }

    /** Whether this timeout means "do not wait". */
    public boolean isImmediate() {
        return !absolute && nanos == 0;
    }

    /** Whether this timeout was given as an absolute deadline. */
    public boolean isAbsolute() {
        return absolute;
    }

    /** Resolves this timeout against the current time; the sentinels need no clock read. */
    public Deadline toDeadline() {
        return Deadline.atNanos(toDeadlineNanos());
    }

    /** Allocation-free form of {@link #toDeadline()}: the raw deadline nanos. */
    public long toDeadlineNanos() {
        if (absolute) {
            return nanos;
        }
        if (nanos == 0) {
            return Deadline.INFINITE_PAST_NANOS;
        }
        if (nanos == Long.MAX_VALUE) {
            return Deadline.INFINITE_FUTURE_NANOS;
        }
        return Deadline.deadlineNanosAfter(nanos, System.nanoTime());
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Timeout that && that.absolute == absolute && that.nanos == nanos;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(nanos) * 31 + (absolute ? 1 : 0);
    }

    @Override
    public String toString() {
        if (isInfinite()) {
            return "Timeout[infinite]";
        }
        if (isImmediate()) {
            return "Timeout[immediate]";
        }
        return absolute ? "Timeout[until " + nanos + "ns]" : "Timeout[" + nanos + "ns]";
    }
}
