package dev.ortho.hal.remote.internal.transport;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Who parses a {@link TcpConnection}'s received bytes: its I/O loop or one waiting caller
 * ({@link TcpConnection#receiveWhile}), never two at once, and whether the loop stopped watching
 * reads because a caller held the role (then whoever hands the role back must have the loop
 * watch again, or frames nobody waits for would never be read). One {@code int}, changed by CAS:
 * {@link #HELD}, {@link #LOOP_OFF}, {@link #REARM_PENDING}. Lock-free; the hand-offs are checked
 * by the jcstress tests in {@code stress/} ({@code ReadRoleStress}).
 */
public final class ReadRole {
    /** A thread parses received bytes. */
    static final int HELD = 1;
    /** The loop stopped watching reads (a caller held the role when the loop was woken). */
    static final int LOOP_OFF = 2;
    /** A {@link #rearm} is scheduled. */
    static final int REARM_PENDING = 4;

    /** What the returning caller must do: nothing. */
    public static final int NOTHING = 0;
    /** What the returning caller must do: have the loop run {@link #rearm} now (bytes are waiting). */
    public static final int REARM_NOW = 1;
    /** What the returning caller must do: have the loop run {@link #rearm} soon. */
    public static final int REARM_LATER = 2;

    /** What {@link #rearm} found: a caller holds the role again (its return schedules the next rearm). */
    public static final int CALLER_HOLDS = 0;
    /** What {@link #rearm} found: the loop must watch reads again, then read. */
    public static final int WATCH_AND_READ = 1;
    /** What {@link #rearm} found: the loop still watches; it should read what was left. */
    public static final int READ = 2;

    private final AtomicInteger state = new AtomicInteger();

    /** A caller takes the role unless someone holds it. */
    /** The role's state bits ({@link #HELD}, {@link #LOOP_OFF}, {@link #REARM_PENDING}) for diagnostics. */
    int bits() {
        return state.get();
    }

    public boolean takeForCaller() {
        while (true) {
            int s = state.get();
            if ((s & HELD) != 0) {
                return false;
            }
            if (state.compareAndSet(s, s | HELD)) {
                return true;
            }
        }
    }

    /**
     * The caller hands the role back; {@code leftover}: it left received bytes unparsed.
     *
     * @return {@link #NOTHING}, {@link #REARM_NOW} or {@link #REARM_LATER}
     */
    public int releaseByCaller(boolean leftover) {
        return releaseByCaller(leftover, false);
    }

    /**
     * The caller hands the role back; {@code leftover}: it left received bytes unparsed;
     * {@code urgent}: a frame nobody waits for may come, so if the loop stopped watching it must
     * watch again now, not later (even if a later rearm is already scheduled: that one then
     * finds nothing to do).
     *
     * @return {@link #NOTHING}, {@link #REARM_NOW} or {@link #REARM_LATER}
     */
    public int releaseByCaller(boolean leftover, boolean urgent) {
        while (true) {
            int s = state.get();
            boolean off = (s & LOOP_OFF) != 0;
            boolean rearm = off || leftover;
            boolean now = leftover || urgent && off;
            int next = rearm ? (s & ~HELD) | REARM_PENDING : s & ~HELD;
            if (state.compareAndSet(s, next)) {
                if (!rearm || (s & REARM_PENDING) != 0 && !now) {
                    return NOTHING; // nothing to do, or a rearm is already on its way
                }
                return now ? REARM_NOW : REARM_LATER;
            }
        }
    }

    /**
     * The loop was woken for reading: true if it took the role (it reads, then
     * {@link #releaseByLoop}); false if a caller holds it, and the loop must stop watching reads
     * (the caller's return arranges a {@link #rearm}).
     */
    public boolean takeForLoop() {
        while (true) {
            int s = state.get();
            int next = (s & HELD) == 0 ? s | HELD : s | LOOP_OFF;
            if (state.compareAndSet(s, next)) {
                return (s & HELD) == 0;
            }
        }
    }

    /** The loop hands the role back (its other bits stay: a scheduled rearm still comes). */
    public void releaseByLoop() {
        state.getAndUpdate(s -> s & ~HELD);
    }

    /**
     * The scheduled rearm runs on the loop.
     *
     * @return {@link #CALLER_HOLDS} (do nothing), {@link #WATCH_AND_READ} or {@link #READ}
     */
    public int rearm() {
        while (true) {
            int s = state.get();
            if ((s & HELD) != 0) {
                if (state.compareAndSet(s, s & ~REARM_PENDING)) {
                    return CALLER_HOLDS;
                }
            } else if (state.compareAndSet(s, 0)) {
                return (s & LOOP_OFF) != 0 ? WATCH_AND_READ : READ;
            }
        }
    }

    /** Whether a thread holds the role now (a hint: for waking a receiving caller). */
    public boolean held() {
        return (state.get() & HELD) != 0;
    }

    /** Whether the loop stopped watching reads now (a hint). */
    public boolean loopOff() {
        return (state.get() & LOOP_OFF) != 0;
    }
}
