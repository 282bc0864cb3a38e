package dev.ortho.task.internal;

import dev.ortho.base.Deadline;
import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.task.Scope;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Scope implementation. The pending count and first error are lock-free; the lock is taken only
 * by waiters and by the completion that drives the count to zero while someone waits.
 */
public final class ScopeImpl implements Scope {
    private static final VarHandle PENDING;
    private static final VarHandle FIRST_ERROR;
    private static final VarHandle ABORTED;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            PENDING = l.findVarHandle(ScopeImpl.class, "pending", int.class);
            FIRST_ERROR = l.findVarHandle(ScopeImpl.class, "firstError", StatusException.class);
            ABORTED = l.findVarHandle(ScopeImpl.class, "aborted", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String name;
    private final boolean abortOnFailure;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition idle = lock.newCondition();
    private volatile int pending;
    private volatile StatusException firstError;
    private volatile boolean aborted;
    private volatile int waiters;

    /** Creates a scope; see {@link Scope#create}. */
    public ScopeImpl(String name, boolean abortOnFailure) {
        this.name = name;
        this.abortOnFailure = abortOnFailure;
    }

    /**
     * One volatile read. With abort-on-failure the first error itself is the abort signal (it
     * pairs with the error CAS in {@link #onProcessDone} and {@link #abort}), so no member can
     * observe the error without also bailing; otherwise only {@link #abort} sets the flag, after
     * its error CAS, so a bailing process always finds the error to inherit.
     */
    boolean lvAborted() {
        return abortOnFailure ? FIRST_ERROR.getVolatile(this) != null : (boolean) ABORTED.getVolatile(this);
    }

    void onProcessCreated() {
        PENDING.getAndAdd(this, 1);  // volatile RMW; pairs with the decrement in onProcessDone
    }

    void onProcessDone(StatusException error) {
        if (error != null) {
            // First error wins; with abort-on-failure this CAS is also the abort (see lvAborted).
            FIRST_ERROR.compareAndSet(this, (StatusException) null, error);
        }
        // volatile RMW, then a volatile read of waiters: Dekker pair with waitIdle's increment of
        // waiters followed by its read of pending, so one side always sees the other.
        int left = (int) PENDING.getAndAdd(this, -1) - 1;
        if (left == 0 && waiters > 0) {
            lock.lock();
            try {
                idle.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int pendingCount() {
        return pending;
    }

    @Override
    public StatusException firstError() {
        return firstError;
    }

    @Override
    public void abort() {
        FIRST_ERROR.compareAndSet(this, (StatusException) null,
                new StatusException(StatusCode.ABORTED, "scope '" + name + "' was aborted"));
        ABORTED.setVolatile(this, true);  // volatile: pairs with lvAborted(), after the error CAS
    }

    @Override
    public boolean waitIdle(long deadlineNanos) {
        if (pending == 0) {
            return true;
        }
        lock.lock();
        try {
            waiters++;
            try {
                while (pending != 0) {
                    if (deadlineNanos == Deadline.INFINITE_FUTURE_NANOS) {
                        idle.await();
                    } else {
                        long left = Deadline.remainingNanos(deadlineNanos, System.nanoTime());
                        if (left <= 0) {
                            return false;
                        }
                        idle.await(left, TimeUnit.NANOSECONDS);
                    }
                }
                return true;
            } finally {
                waiters--;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StatusException(StatusCode.CANCELLED, "wait for scope '" + name + "' was interrupted");
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "Scope[" + name + ", pending=" + pending + "]";
    }
}
