package dev.ortho.task;

import dev.ortho.base.StatusException;
import dev.ortho.task.internal.ScopeImpl;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Groups processes from one producer (IREE's {@code iree_task_scope_t}): counts those not yet
 * completed, keeps the first error any of them reported, and lets a thread wait until all are
 * done. A scope implies no ordering between its processes.
 *
 * <p>With {@code abortOnFailure}, the first failure also fails the scope permanently: processes
 * of the scope that have not completed yet are not drained again; they complete with the
 * scope's error as soon as a worker reaches them. Without it, the other processes keep running.
 *
 * <p>Thread-safe. A scope may be reused for many batches; it is idle whenever its pending
 * count is zero.
 */
@ProviderType
public interface Scope {

    /**
     * Creates a scope.
     *
     * @param name used in logs and error messages
     * @param abortOnFailure whether the first failure stops the scope's other processes
     */
    static Scope create(String name, boolean abortOnFailure) {
        return new ScopeImpl(name, abortOnFailure);
    }

    /** Name given at creation. */
    String name();

    /** Number of processes of this scope built but not yet completed (a snapshot). */
    int pendingCount();

    /** The first error reported by a process of this scope (or by {@link #abort()}), or null. */
    StatusException firstError();

    /**
     * Fails the scope with {@code ABORTED} (unless it already failed) and stops its pending
     * processes as if {@code abortOnFailure} were set.
     */
    void abort();

    /**
     * Blocks until the pending count is zero or the deadline passes. Must not be called from
     * inside a drain function.
     *
     * @param deadlineNanos absolute {@link System#nanoTime()} deadline, or
     *     {@link dev.ortho.base.Deadline#INFINITE_FUTURE_NANOS}
     * @return true if the scope became idle, false on timeout
     * @throws StatusException CANCELLED if the waiting thread is interrupted (the interrupt
     *     flag is restored)
     */
    boolean waitIdle(long deadlineNanos);
}
