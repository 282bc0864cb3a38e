package dev.ortho.base;

import java.time.Duration;

/**
 * An absolute point in time in the {@link System#nanoTime()} timebase after which a wait gives up,
 * like IREE's {@code iree_time_t} deadlines.
 *
 * <p>Two sentinels avoid clock reads on the common paths: {@link #infinite()} ({@code
 * Long.MAX_VALUE}, never expires) and {@link #immediate()} ({@code Long.MIN_VALUE}, always
 * expired: poll without waiting). Every other value is a {@code System.nanoTime()} reading; on the
 * JVMs Ortho runs on (HotSpot on Linux, {@code CLOCK_MONOTONIC}) that clock is positive and nowhere
 * near overflow, so deadlines compare with plain {@code <}.
 *
 * <p>Hot paths that must not allocate pass deadlines as raw {@code long} nanos and use the static
 * helpers ({@link #remainingNanos(long, long)}); this class is the readable form for APIs.
 *
 * <p>Immutable; thread-safe.
 */
public final class Deadline {
    /** Raw value of the deadline that never expires. */
    public static final long INFINITE_FUTURE_NANOS = Long.MAX_VALUE;
    /** Raw value of the deadline that has always expired (poll, never wait). */
    public static final long INFINITE_PAST_NANOS = Long.MIN_VALUE;

    private static final Deadline INFINITE = new Deadline(INFINITE_FUTURE_NANOS);
    private static final Deadline IMMEDIATE = new Deadline(INFINITE_PAST_NANOS);

    private final long nanos;

    private Deadline(long nanos) {
        this.nanos = nanos;
    }

    /** The deadline that never expires: wait as long as it takes. */
    public static Deadline infinite() {
        return INFINITE;
    }

    /** The deadline that has already expired: check once, never block. */
    public static Deadline immediate() {
        return IMMEDIATE;
    }

    /** The deadline at {@code nanoTime}, a value in the {@link System#nanoTime()} timebase. */
    public static Deadline atNanos(long nanoTime) {
        if (nanoTime == INFINITE_FUTURE_NANOS) {
            return INFINITE;
        }
        if (nanoTime == INFINITE_PAST_NANOS) {
            return IMMEDIATE;
        }
        return new Deadline(nanoTime);
    }

    /**
     * The deadline {@code relativeNanos} from now. Saturates: a duration too long to represent is
     * {@link #infinite()}, and a duration of zero or less is {@link #immediate()}.
     */
    public static Deadline afterNanos(long relativeNanos) {
        return atNanos(deadlineNanosAfter(relativeNanos, System.nanoTime()));
    }

    /** The deadline {@code duration} from now; see {@link #afterNanos(long)} for saturation. */
    public static Deadline after(Duration duration) {
        return afterNanos(saturatedNanos(duration));
    }

    /** The raw value: a {@code System.nanoTime()} reading or one of the two sentinels. */
    public long nanos() {
        return nanos;
    }

    /** Whether this deadline never expires. */
    public boolean isInfinite() {
        return nanos == INFINITE_FUTURE_NANOS;
    }

    /** Whether this deadline is the "poll, never wait" sentinel. */
    public boolean isImmediate() {
        return nanos == INFINITE_PAST_NANOS;
    }

    /** Whether the deadline has passed (always true for {@link #immediate()}). */
    public boolean hasExpired() {
        return remainingNanos() == 0;
    }

    /**
     * Nanoseconds left until the deadline: {@code 0} once it has passed, {@code Long.MAX_VALUE}
     * for {@link #infinite()}. Suitable for {@code LockSupport.parkNanos}.
     */
    public long remainingNanos() {
        if (nanos == INFINITE_FUTURE_NANOS) {
            return Long.MAX_VALUE;
        }
        if (nanos == INFINITE_PAST_NANOS) {
            return 0;
        }
        return remainingNanos(nanos, System.nanoTime());
    }

    /**
     * Allocation-free form of {@link #remainingNanos()} for raw deadlines: nanoseconds from
     * {@code nowNanos} to {@code deadlineNanos}, {@code 0} if it has passed, {@code Long.MAX_VALUE}
     * if it is {@link #INFINITE_FUTURE_NANOS}.
     */
    public static long remainingNanos(long deadlineNanos, long nowNanos) {
        if (deadlineNanos == INFINITE_FUTURE_NANOS) {
            return Long.MAX_VALUE;
        }
        if (deadlineNanos <= nowNanos) {
            return 0;
        }
        long remaining = deadlineNanos - nowNanos;
        return remaining < 0 ? Long.MAX_VALUE : remaining; // overflow: now far in the past
    }

    /**
     * Allocation-free deadline arithmetic: the raw deadline {@code relativeNanos} after
     * {@code nowNanos}, saturating to the sentinels as {@link #afterNanos(long)} does.
     */
    public static long deadlineNanosAfter(long relativeNanos, long nowNanos) {
        if (relativeNanos <= 0) {
            return INFINITE_PAST_NANOS;
        }
        if (relativeNanos == Long.MAX_VALUE) {
            return INFINITE_FUTURE_NANOS;
        }
        long deadline = nowNanos + relativeNanos;
        // Overflow (both operands positive, sum negative) saturates to "never".
        return (nowNanos > 0 && deadline < 0) ? INFINITE_FUTURE_NANOS : deadline;
    }

    static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException tooLong) {
            return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Deadline that && that.nanos == nanos;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(nanos);
    }

    @Override
    public String toString() {
        if (isInfinite()) {
            return "Deadline[infinite]";
        }
        if (isImmediate()) {
            return "Deadline[immediate]";
        }
        return "Deadline[" + nanos + "ns]";
    }
}
