package dev.ortho.vm.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A pool of at most one spare object, shared by any number of threads: {@link #take()} empties
 * the slot and returns what it held, {@link #offer(Object)} fills it only if it is empty. Each
 * object is therefore handed to at most one taker until it is offered again, and a thread that
 * finds the slot empty (or full) simply allocates (or drops) its own. Used to keep one
 * {@code Stack} per context across host invocations.
 *
 * <p>Thread-safe and lock-free: one atomic exchange per {@code take}, one compare-and-set per
 * {@code offer}. Both are volatile accesses, so whatever the offering thread wrote to the object
 * before offering it happens-before the taker's use of it.
 *
 * @param <T> the pooled object type
 */
public final class SpareSlot<T> {
    private static final VarHandle SPARE;

    static {
        try {
            SPARE = MethodHandles.lookup().findVarHandle(SpareSlot.class, "spare", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused")  // accessed through SPARE
    private Object spare;

    /** Creates an empty slot. */
    public SpareSlot() {
    }

    /** Empties the slot; returns its object, or null if it was empty. */
    @SuppressWarnings("unchecked")
    public T take() {
        if (SPARE.getAcquire(this) == null) {
            return null;  // cheap read first: no exchange (and no cache-line ownership) when empty
        }
        return (T) SPARE.getAndSet(this, null);
    }

    /**
     * Puts {@code object} into the slot if it is empty; returns false (the caller keeps or drops
     * it) if another object is already there. The caller must not use {@code object} after a
     * true return.
     */
    public boolean offer(T object) {
        return SPARE.compareAndSet(this, null, object);
    }
}
