package dev.ortho.hal.remote.internal.transport;

/**
 * Whether a thread about to block for the peer (a receiving caller, an I/O loop that just
 * handled a readiness) first polls for up to {@link #NANOS}, and learns from it: it spins while
 * spinning paid off (the bytes came within the budget last time), else only every
 * {@value #PROBE_EVERY}th time, to notice when the peer is quick again.
 *
 * <p>Why: on a virtual machine whose idle vCPU halts at once, waking a thread blocked on the
 * other, halted vCPU costs 15-40 us (the vCPU must be resumed by the host), more than a whole
 * loopback round trip; a thread that polls keeps its vCPU running, so the bytes find it awake.
 * A peer that answers later than the budget costs a spinner at most one budget per
 * {@value #PROBE_EVERY} waits.
 *
 * <p>Not thread-safe: one per role, used only by the role's holder (the read role's, the loop
 * thread).
 */
final class SpinBudget {
    /** Longest one spin. */
    static final long NANOS = 50_000;
    /** How often a spin is tried while spinning does not pay (a power of two). */
    static final int PROBE_EVERY = 16;

    /** The last spin found what it waited for (a fresh budget spins). */
    private boolean paid = true;
    private int probes;

    /** Whether to spin before blocking now. */
    boolean worthSpinning() {
        return paid || (++probes & (PROBE_EVERY - 1)) == 0;
    }

    /** A spin ended: {@code found} whether what it waited for came within it. */
    void ended(boolean found) {
        paid = found;
    }
}
