package dev.ortho.modules.hal.internal;

import dev.ortho.base.StatusException;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.spi.TimelineSemaphore;
import dev.ortho.vm.WaitSource;
import java.util.function.Consumer;

/**
 * A VM {@link WaitSource} for "{@code semaphore} reaches {@code value}" (IREE's
 * {@code iree_hal_semaphore_await}): readiness comes from a semaphore timepoint, so a yielded
 * invocation is resumed by whoever signals the semaphore, without a thread waiting. The semaphore
 * is borrowed: the fence passed to {@code fence.await} keeps it alive while the wait frame
 * exists. A synchronous invocation's wait {@linkplain #help helps} the semaphore's driver first.
 * Thread-safe.
 *
 * @param semaphore the semaphore
 * @param value the value to reach
 */
record SemaphoreWaitSource(Semaphore semaphore, long value) implements WaitSource {
    @Override
    public boolean poll() {
        return semaphore.query() >= value;
    }

    @Override
    public void whenReady(Consumer<StatusException> callback) {
        semaphore.addTimepoint(value, (s, v, failure) -> callback.accept(failure));
    }

    /**
     * Runs the work that signals the value on the calling thread where the semaphore's driver
     * offers it ({@link TimelineSemaphore#help}: local-task's {@code task_waiter_helps}); returns
     * at once for any other semaphore.
     */
    @Override
    public void help(long deadlineNanos) {
        if (semaphore instanceof TimelineSemaphore timeline) {
            timeline.help(value, deadlineNanos);
        }
    }
}
