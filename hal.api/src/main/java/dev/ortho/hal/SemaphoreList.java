package dev.ortho.hal;

import dev.ortho.base.Deadline;
import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * An immutable list of semaphore timepoints ({@code semaphore >= value}): the wait and signal
 * lists of queue operations, IREE's {@code iree_hal_semaphore_list_t}.
 *
 * <p>The list does not retain its semaphores; whoever holds the list keeps them alive (a queue
 * operation retains them until it retires). Thread-safe (immutable).
 */
public final class SemaphoreList {
    private static final SemaphoreList EMPTY = new SemaphoreList(new Semaphore[0], new long[0]);

    private final Semaphore[] semaphores;
    private final long[] values;

    private SemaphoreList(Semaphore[] semaphores, long[] values) {
        this.semaphores = semaphores;
        this.values = values;
    }

    /** The list with no timepoints: waiting on it returns at once, signalling it does nothing. */
    public static SemaphoreList empty() {
        return EMPTY;
    }

    /** A list of one timepoint. */
    public static SemaphoreList of(Semaphore semaphore, long value) {
        return of(new Semaphore[] {semaphore}, new long[] {value});
    }

    /**
     * A list pairing {@code semaphores[i]} with {@code values[i]}; the arrays are copied.
     *
     * @throws StatusException INVALID_ARGUMENT if the lengths differ or an element is null
     */
    public static SemaphoreList of(Semaphore[] semaphores, long[] values) {
        if (semaphores.length != values.length) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "semaphore list has "
                    + semaphores.length + " semaphores but " + values.length + " values");
        }
        for (int i = 0; i < semaphores.length; i++) {
            if (semaphores[i] == null) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "semaphore list entry " + i + " is null");
            }
        }
        return semaphores.length == 0 ? EMPTY : new SemaphoreList(semaphores.clone(), values.clone());
    }

    /**
     * A list over {@code semaphores} and {@code values} themselves, not copied: for callers in
     * this package that made the arrays (checked: no null, equal lengths, at least one entry) and
     * never write them again.
     */
    static SemaphoreList adopt(Semaphore[] semaphores, long[] values) {
        return new SemaphoreList(semaphores, values);
    }

    public int size() {
        return semaphores.length;
    }

    public boolean isEmpty() {
        return semaphores.length == 0;
    }

    public Semaphore semaphore(int index) {
        return semaphores[index];
    }

    public long value(int index) {
        return values[index];
    }

    /** Whether every semaphore has reached its value (false if any has failed). Never blocks. */
    public boolean poll() {
        for (int i = 0; i < semaphores.length; i++) {
            if (semaphores[i].failure() != null) {
                return false;
            }
            try {
                if (semaphores[i].query() < values[i]) {
                    return false;
                }
            } catch (StatusException failedMeanwhile) {
                return false;
            }
        }
        return true;
    }

    /**
     * Signals each semaphore to its value, in order.
     *
     * @throws StatusException as {@link Semaphore#signal}, annotated with the entry index
     */
    public void signal() {
        for (int i = 0; i < semaphores.length; i++) {
            try {
                semaphores[i].signal(values[i]);
            } catch (StatusException e) {
                throw e.annotate("while signalling semaphore list entry " + i);
            }
        }
    }

    /** Fails every semaphore with {@code status} (each keeps its first failure). */
    public void fail(StatusException status) {
        for (Semaphore semaphore : semaphores) {
            semaphore.fail(status);
        }
    }

    /**
     * Blocks until every semaphore reaches its value. Fails fast: the first failure of any
     * semaphore ends the wait with that failure, without waiting for the others.
     *
     * @throws StatusException DEADLINE_EXCEEDED, a semaphore's failure, or ABORTED if interrupted
     */
    public void awaitAll(Timeout timeout) {
        StatusException failure = await(timeout, semaphores.length, "all");
        if (failure != null) {
            throw copyOf(failure);
        }
    }

    /**
     * Blocks until at least one semaphore reaches its value and returns the index of one that
     * has (and has not failed since). An empty list returns -1 at once.
     *
     * @throws StatusException DEADLINE_EXCEEDED; a semaphore's failure if no semaphore reached
     *     its value before failures ended the wait; ABORTED if interrupted
     */
    public int awaitAny(Timeout timeout) {
        if (semaphores.length == 0) {
            return -1;
        }
        StatusException failure = await(timeout, 1, "any");
        for (int i = 0; i < semaphores.length; i++) {
            if (reached(i)) {
                return i;
            }
        }
        for (Semaphore semaphore : semaphores) {
            if (failure == null) {
                failure = semaphore.failure();
            }
        }
        throw copyOf(failure);
    }

    private boolean reached(int index) {
        try {
            return semaphores[index].query() >= values[index];
        } catch (StatusException failed) {
            return false;
        }
    }

    /** Waits until {@code needed} timepoints are reached or one fails; returns that failure. */
    private StatusException await(Timeout timeout, int needed, String mode) {
        if (needed == 0) {
            return null;
        }
        // Already there (a synchronous device's waits always are): no waiter, no timepoints.
        int reachedCount = 0;
        for (int i = 0; i < semaphores.length && reachedCount < needed; i++) {
            if (reached(i)) {
                reachedCount++;
            }
        }
        if (reachedCount >= needed) {
            return null;
        }
        long deadline = timeout.toDeadlineNanos();
        // Run the signalling work here where a driver offers it (local-task's task_waiter_helps).
        for (int i = 0; i < semaphores.length; i++) {
            if (semaphores[i] instanceof TimelineSemaphore timeline && !reached(i)) {
                timeline.help(values[i], deadline);
                if (needed == 1 && reached(i)) {
                    return null; // any: this one is reached
                }
            }
        }
        MultiWaiter waiter = new MultiWaiter(Thread.currentThread(), needed);
        Timepoint[] timepoints = new Timepoint[semaphores.length];
        try {
            for (int i = 0; i < semaphores.length && !waiter.isDone(); i++) {
                timepoints[i] = semaphores[i].addTimepoint(values[i], waiter);
            }
            while (!waiter.isDone()) {
                if (Thread.currentThread().isInterrupted()) {
                    throw new StatusException(StatusCode.ABORTED, "wait for " + mode + " of " + this
                            + " was interrupted");
                }
                long remaining = Deadline.remainingNanos(deadline, System.nanoTime());
                if (remaining == 0) {
                    throw new StatusException(StatusCode.DEADLINE_EXCEEDED, "wait for " + mode
                            + " of " + this + " did not finish in time");
                }
                LockSupport.parkNanos(this, remaining);
            }
        } finally {
            for (Timepoint timepoint : timepoints) {
                if (timepoint != null) {
                    timepoint.cancel();
                }
            }
        }
        return waiter.failure;
    }

    private static StatusException copyOf(StatusException failure) {
        return new StatusException(failure.code(), failure.getMessage(), failure);
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("[");
        for (int i = 0; i < semaphores.length; i++) {
            text.append(i == 0 ? "" : ", ").append(semaphores[i]).append(" >= ").append(values[i]);
        }
        return text.append(']').toString();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof SemaphoreList that && Arrays.equals(semaphores, that.semaphores)
                && Arrays.equals(values, that.values);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(semaphores) * 31 + Arrays.hashCode(values);
    }

    /** Counts reached timepoints; the first failure ends the wait. */
    private static final class MultiWaiter implements TimepointCallback {
        private final Thread thread;
        private final AtomicInteger remaining;
        volatile StatusException failure;

        MultiWaiter(Thread thread, int needed) {
            this.thread = thread;
            this.remaining = new AtomicInteger(needed);
        }

        boolean isDone() {
            return failure != null || remaining.get() <= 0;
        }

        @Override
        public void onTimepoint(Semaphore semaphore, long value, StatusException status) {
            if (status != null) {
                if (failure == null) {
                    failure = status; // benign race: any failure ends the wait
                }
            } else {
                remaining.decrementAndGet();
            }
            LockSupport.unpark(thread);
        }
    }
}
