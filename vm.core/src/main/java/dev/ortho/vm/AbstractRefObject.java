package dev.ortho.vm;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Base for {@link RefObject}s with an atomic reference count that starts at one (the creator's
 * reference) and calls {@link #destroy()} exactly once when it reaches zero.
 *
 * <p>Thread-safe. Releasing more often than retained fails with FAILED_PRECONDITION rather than
 * destroying twice.
 */
public abstract class AbstractRefObject implements RefObject {
    private static final VarHandle COUNT;

    static {
        try {
            COUNT = MethodHandles.lookup().findVarHandle(AbstractRefObject.class, "count", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Accessed through {@link #COUNT} only. */
    @SuppressWarnings("unused")
    private volatile int count = 1;

    /** Creates the object holding one reference, owned by the creator. */
    protected AbstractRefObject() {
    }

    @Override
    public final void retain() {
        // relaxed increment: the caller already holds a reference, so the object is live.
        int old = (int) COUNT.getAndAdd(this, 1);
        if (old <= 0) {
            COUNT.getAndAdd(this, -1);
            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                    refType().name() + " retained after it was destroyed");
        }
    }

    @Override
    public final void release() {
        // acq_rel decrement: the releasing thread's writes happen-before destroy() on the last one.
        int old = (int) COUNT.getAndAdd(this, -1);
        if (old == 1) {
            destroy();
        } else if (old <= 0) {
            COUNT.getAndAdd(this, 1);
            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                    refType().name() + " released more often than retained");
        }
    }

    /** Current count (a racy snapshot, for tests and diagnostics). */
    public final int refCount() {
        return (int) COUNT.getVolatile(this);
    }

    /** Frees resources; called once, by the thread that dropped the last reference. */
    protected abstract void destroy();
}
