package dev.ortho.hal.remote.internal.transport;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Who reads a {@link BlockingTcpConnection}'s socket: its reader thread (the <em>pump</em>) or
 * one waiting caller, never two at once; whether a caller asked for the role while the pump held
 * it ({@link #WANTED}: the pump hands it back once nothing more is expected), and whether the pump
 * must read again at once when the role comes back ({@link #URGENT}). One {@code int}, changed by
 * CAS; lock-free. The hand-offs are checked by the jcstress tests in {@code stress/}
 * ({@code ReceiveRoleStress}).
 */
public final class ReceiveRole {
    /** The pump holds the role. */
    public static final int PUMP = 1;
    /** A caller holds the role. */
    public static final int CALLER = 2;
    /** Either holder. */
    static final int HELD = PUMP | CALLER;
    /** A caller found the pump holding the role (cleared when the role is handed back). */
    public static final int WANTED = 4;
    /** A frame may come that nobody receives: the pump takes the role again without waiting. */
    public static final int URGENT = 8;

    private final AtomicInteger state = new AtomicInteger();

    /**
     * A caller takes the role if nobody holds it (true); if the pump holds it, marks
     * {@link #WANTED} (false); if another caller does, false.
     */
    public boolean takeForCaller() {
        while (true) {
            int s = state.get();
            if ((s & HELD) == 0) {
                if (state.compareAndSet(s, CALLER)) {
                    return true;
                }
            } else if ((s & PUMP) == 0 || (s & WANTED) != 0 || state.compareAndSet(s, s | WANTED)) {
                return false;
            }
        }
    }

    /** The caller hands the role back; {@code urgent}: the pump must take it again at once. */
    public void releaseByCaller(boolean urgent) {
        state.getAndUpdate(s -> (s & ~(CALLER | WANTED)) | (urgent ? URGENT : 0));
    }

    /**
     * The pump takes the role if nobody holds it and either {@code rearmDue} (no caller handed it
     * back lately) or {@link #URGENT}; clears both marks.
     */
    public boolean takeForPump(boolean rearmDue) {
        while (true) {
            int s = state.get();
            if ((s & HELD) != 0 || !rearmDue && (s & URGENT) == 0) {
                return false;
            }
            if (state.compareAndSet(s, PUMP)) {
                return true;
            }
        }
    }

    /** The pump hands the role back (a caller's {@link #WANTED} is served by this). */
    public void releaseByPump() {
        state.getAndUpdate(s -> s & ~(PUMP | WANTED));
    }

    /** Has the pump take the role again at once when it is free. */
    public void urge() {
        state.getAndUpdate(s -> s | URGENT);
    }

    /** Whether a caller asked for the role while the pump held it. */
    public boolean wanted() {
        return (state.get() & WANTED) != 0;
    }

    /** Whether a holder holds the role now ({@link #PUMP}, {@link #CALLER} or 0; a hint). */
    public int holder() {
        return state.get() & HELD;
    }

    /** The state's bits (diagnostics, tests). */
    public int bits() {
        return state.get();
    }
}
