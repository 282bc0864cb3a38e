package dev.ortho.hal;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Host code run in queue order by {@link Device#queueHostCall}: IREE's
 * {@code iree_hal_host_call_fn_t}.
 *
 * <p>Blocking mode: the queue calls it once the waits are reached and signals the signal list
 * when it returns {@code true}; a thrown {@link dev.ortho.base.StatusException} fails the signal
 * list instead. Returning {@code false} means "deferred" (IREE's DEFERRED): the call keeps
 * {@code signals} (retaining the semaphores it needs) and signals or fails them itself later.
 * Non-blocking mode ({@link #FLAG_NON_BLOCKING}): the queue signals first and the call receives an
 * empty list; its failures are logged and dropped.
 *
 * <p>Runs on a queue thread: never issue queue operations or block on semaphores from it.
 */
@ConsumerType
@FunctionalInterface
public interface HostCall {
    /** IREE_HAL_HOST_CALL_FLAG_NON_BLOCKING. */
    long FLAG_NON_BLOCKING = 1L << 0;
    /** IREE_HAL_HOST_CALL_FLAG_WAIT_ACTIVE: a hint that the call is very short. */
    long FLAG_WAIT_ACTIVE = 1L << 1;
    /** IREE_HAL_HOST_CALL_FLAG_RELAXED: no cache flush/invalidate needed around the call. */
    long FLAG_RELAXED = 1L << 2;

    /**
     * @param device the device the call was queued on
     * @param args the four arguments given at enqueue
     * @param signals what to signal on completion (empty in non-blocking mode)
     * @return true if done (the queue signals), false if deferred (the call signals later)
     */
    boolean call(Device device, long[] args, SemaphoreList signals);
}
