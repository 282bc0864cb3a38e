package dev.ortho.hal.spi;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The reference count of a HAL resource: starts at one (the creator's reference), {@link #retain}
 * adds one, {@link #release} drops one and answers whether it was the last, so the owner frees
 * what it holds exactly once. Releasing more often than retaining is IREE's programming error and
 * is reported, not ignored.
 *
 * <p>A resource holds one as a field and forwards to it:
 *
 * <pre>{@code
 * private final RefCount references = new RefCount();
 * public void retain() { references.retain(); }
 * public void release() { if (references.release(this)) { freeEverything(); } }
 * }</pre>
 *
 * <p>Thread-safe and lock-free; allocation-free on every path but the failing one.
 */
public final class RefCount {
    private static final VarHandle COUNT;

    static {
        try {
            COUNT = MethodHandles.lookup().findVarHandle(RefCount.class, "count", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // accessed through COUNT
    private volatile int count = 1;

    /** A count of one: the creator's reference. */
    public RefCount() {}

    /** Adds a reference. */
    public void retain() {
        COUNT.getAndAdd(this, 1); // volatile RMW: pairs with the one in release()
    }

    /**
     * Adds a reference unless the last one was released already (a resource must not come back
     * to life).
     *
     * @return false, changing nothing, if no reference was left
     */
    public boolean tryRetain() {
        int current;
        do {
            current = (int) COUNT.getVolatile(this);
            if (current <= 0) {
                return false;
            }
        } while (!COUNT.compareAndSet(this, current, current + 1)); // pairs with release()'s RMW
        return true;
    }

    /**
     * Drops a reference.
     *
     * @param owner names the resource in the error message (its {@code toString} is called only
     *     on failure)
     * @return true if this was the last reference: the caller frees the resource now
     * @throws StatusException FAILED_PRECONDITION "{@code <owner>} released more times than
     *     retained" if no reference was left; the count stays at zero
     */
    public boolean release(Object owner) {
        // volatile RMW: orders every use of the resource before the last release frees it
        int remaining = (int) COUNT.getAndAdd(this, -1) - 1;
        if (remaining > 0) {
            return false;
        }
        if (remaining == 0) {
            return true;
        }
        COUNT.getAndAdd(this, 1);
        throw new StatusException(StatusCode.FAILED_PRECONDITION, owner
                + " released more times than retained (no reference was left to release)");
    }

    /** The current count (a snapshot: other threads may change it at once). */
    public int count() {
        return (int) COUNT.getVolatile(this);
    }

    @Override
    public String toString() {
        return "references " + count();
    }
}
