package dev.ortho.vm;

import dev.ortho.base.StatusException;
import java.util.function.Consumer;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * Something a yielded invocation can wait on (IREE's {@code iree_wait_source_t}); HAL fences and
 * semaphores implement it.
 *
 * <p>Implementations must be thread-safe. Callbacks must not block: they typically schedule the
 * resumption of an invocation.
 */
@ConsumerType
public interface WaitSource {
    /**
     * Non-blocking query.
     *
     * @return true if resolved successfully, false if still pending
     * @throws StatusException the failure if the source failed (e.g. a failed semaphore)
     */
    boolean poll();

    /**
     * Calls {@code callback} exactly once when the source resolves: with null on success or with
     * the failure. May call it inline (on the registering thread) if already resolved.
     */
    void whenReady(Consumer<StatusException> callback);

    /**
     * Runs, on the calling thread, work that will resolve this source, if whoever resolves it has
     * some that the caller can run now (local-task's unclaimed tiles of the operation that signals
     * the awaited semaphore value, {@code task_waiter_helps}); returns at once otherwise (the
     * default). Returns when nothing is left to claim, when the source has resolved or failed, or
     * at {@code deadlineNanos} (a {@link System#nanoTime} deadline,
     * {@link dev.ortho.base.Deadline#INFINITE_FUTURE_NANOS} for none; one unit of work, e.g. one
     * workgroup, may run past it). Never throws the work's failure: failed work fails the source,
     * which {@link #poll} and {@link #whenReady} then report. A synchronous wait
     * ({@link Invocation#invoke}) calls it before it polls or parks.
     *
     * @since 1.2
     */
    default void help(long deadlineNanos) {
    }
}
