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
}
