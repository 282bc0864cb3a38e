package dev.ortho.vm;

/**
 * How {@link Module#beginCall} or {@link Module#resumeCall} returned: completed (results written,
 * the callee's frame popped) or deferred (IREE's {@code IREE_STATUS_DEFERRED}: the callee yielded,
 * its frame, and possibly a wait frame above it, stay on the stack until resumed). Failures are
 * thrown as {@link dev.ortho.base.StatusException}.
 */
public enum CallOutcome {
    /** The call finished. */
    COMPLETED,
    /** The call yielded and must be resumed. */
    DEFERRED
}
