package dev.ortho.vm;

/** What a {@link FrameType#WAIT} frame waits for (IREE's {@code iree_vm_wait_type_t}). */
public enum WaitType {
    /** Until the deadline passes (an immediate deadline is a plain deferral). */
    UNTIL,
    /** Until any wait source resolves. */
    ANY,
    /** Until all wait sources resolve. */
    ALL
}
