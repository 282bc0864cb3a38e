package dev.ortho.hal.remote.internal.sync;

import dev.ortho.base.StatusException;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.Timepoint;
import dev.ortho.hal.TimepointCallback;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Holds one operation until every timepoint of a wait list is reached (or one fails), then hands
 * it to an executor: how the server accepts submit-before-signal work without blocking a thread,
 * whatever the device does with unreached waits. Timepoint callbacks only count down and
 * enqueue; the operation itself never runs inside a callback.
 *
 * <p>Thread-safe. The action runs exactly once: with null when the waits are reached, with the
 * first failure, or with the status given to {@link #abort}.
 */
public final class Gate implements TimepointCallback {
    private final Executor executor;
    private final Consumer<StatusException> action;
    private final AtomicInteger remaining;
    private final AtomicBoolean fired = new AtomicBoolean();
    private final Timepoint[] timepoints;

    private Gate(int waits, Executor executor, Consumer<StatusException> action) {
        this.executor = executor;
        this.action = action;
        this.remaining = new AtomicInteger(waits);
        this.timepoints = new Timepoint[waits];
    }

    /** Runs {@code action} on {@code executor} once {@code waits} are reached or one fails. */
    public static Gate open(SemaphoreList waits, Executor executor, Consumer<StatusException> action) {
        Gate gate = new Gate(waits.size(), executor, action);
        if (waits.isEmpty()) {
            gate.fire(null);
            return gate;
        }
        for (int i = 0; i < waits.size() && !gate.fired.get(); i++) {
            Semaphore semaphore = waits.semaphore(i);
            gate.timepoints[i] = semaphore.addTimepoint(waits.value(i), gate);
        }
        return gate;
    }

    @Override
    public void onTimepoint(Semaphore semaphore, long value, StatusException failure) {
        if (failure != null) {
            fire(failure);
        } else if (remaining.decrementAndGet() == 0) {
            fire(null);
        }
    }

    /** Fires with {@code status} if the gate has not fired yet; cancels the pending timepoints. */
    public void abort(StatusException status) {
        if (fire(status)) {
            for (Timepoint timepoint : timepoints) {
                if (timepoint != null) {
                    timepoint.cancel();
                }
            }
        }
    }

    public boolean hasFired() {
        return fired.get();
    }

    private boolean fire(StatusException status) {
        if (!fired.compareAndSet(false, true)) {
            return false;
        }
        executor.execute(() -> action.accept(status));
        return true;
    }
}
