package dev.ortho.hal.validation.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.spi.RefCount;

/**
 * The references a validating wrapper has handed out through itself, to catch use after the last
 * release and releases beyond the last. Counts only references taken through the wrapper (the
 * inner device's own retention for in-flight work is not visible here and needs none: a caller
 * that released its last reference must not touch the object again, whatever keeps it alive).
 *
 * <p>Thread-safe: one {@link RefCount}; {@link #check} is a single volatile read.
 */
final class Liveness {
    private final RefCount references = new RefCount();

    /**
     * @throws StatusException FAILED_PRECONDITION naming {@code call} and {@code resource} if the
     *     last reference was released
     */
    void check(String call, Object resource) {
        if (references.count() <= 0) { // volatile read: pairs with the decrement in release()
            throw released(call, resource);
        }
    }

    /** {@link #check(String, Object)} for {@code argument} of {@code call}; builds no string unless it fails. */
    void check(String call, String argument, Object resource) {
        if (references.count() <= 0) { // volatile read: pairs with the decrement in release()
            throw released(call + " " + argument, resource);
        }
    }

    /** {@link #check(String, Object)} for element {@code index} of list {@code argument} of {@code call}. */
    void check(String call, String argument, int index, Object resource) {
        if (references.count() <= 0) {
            throw released(call + " " + argument + "[" + index + "]", resource);
        }
    }

    /** Whether references remain. */
    boolean isLive() {
        return references.count() > 0;
    }

    /** Adds a reference; FAILED_PRECONDITION if the last one was released already. */
    void retain(String call, Object resource) {
        if (!references.tryRetain()) {
            throw released(call, resource);
        }
    }

    /**
     * Drops a reference.
     *
     * @return true if it was the last one
     * @throws StatusException FAILED_PRECONDITION if no reference remains (nothing is changed)
     */
    boolean release(String call, Object resource) {
        try {
            return references.release(resource);
        } catch (StatusException e) {
            throw new StatusException(e.code(), call + ": " + e.getMessage());
        }
    }

    private static StatusException released(String call, Object resource) {
        return new StatusException(StatusCode.FAILED_PRECONDITION, call + ": " + resource
                + " is used after its last release (references 0, needs at least 1)");
    }
}
