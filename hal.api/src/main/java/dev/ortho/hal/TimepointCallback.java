package dev.ortho.hal;

import dev.ortho.base.StatusException;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * Called once when a semaphore reaches a value, fails, or is destroyed: IREE's timepoint
 * callback.
 *
 * <p>Runs on the thread that signalled or failed the semaphore (or inline in
 * {@link Semaphore#addTimepoint} if the value was already reached), with no semaphore lock held:
 * it may signal or fail any semaphore, push to lock-free queues, or schedule executor work. It
 * must not block (no waits, no I/O, no locks that a signalling thread may hold) and should be
 * short. An exception it throws is caught and logged by the semaphore; it never reaches the
 * signaller.
 */
@ConsumerType
@FunctionalInterface
public interface TimepointCallback {

    /**
     * @param semaphore the semaphore the timepoint was registered on
     * @param value the value the timepoint waited for
     * @param failure null if {@code value} was reached; otherwise why it never will be: the
     *     semaphore's failure, or {@code CANCELLED} if the semaphore was destroyed
     */
    void onTimepoint(Semaphore semaphore, long value, StatusException failure);
}
