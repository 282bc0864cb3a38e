package dev.ortho.task;

import dev.ortho.base.StatusException;
import org.osgi.annotation.versioning.ConsumerType;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A long-lived, reusable budget-1 process that runs submitted {@link Item items} inside its own
 * drain: the way to run many small pieces of work without building a {@link Process} for each
 * (the seed's <em>queue process</em>: pre-allocated, drains a lock-free ready list, sleeps when
 * it is empty and is woken by the next submission).
 *
 * <p><b>Cost.</b> {@link #submit} allocates one small node, does one CAS on the queue head and,
 * only when the queue was empty, one {@link Process#schedule()} of the underlying process. No
 * builder, no process object, no registration with the executor per item.
 *
 * <p><b>Order and concurrency.</b> Items run one at a time, on one worker at a time (the process
 * has a fixed wake budget of one), in the order their {@code submit} calls took effect; items of
 * one producer thread run in submission order. One drain call runs a bounded batch; like any
 * budget-1 process, the worker keeps draining while items remain, and briefly polls an empty
 * queue before the process sleeps. Items that must run in parallel belong in different queue
 * processes or in a compute process.
 *
 * <p><b>Exactly once.</b> Every item whose {@code submit} returned {@code true} is either run once
 * or, if the queue fails or is cancelled first, {@link Item#abandon abandoned} once. An item that
 * {@code submit} refuses (returns {@code false}) was abandoned on the submitting thread before
 * {@code submit} returned.
 *
 * <p><b>Lifetime.</b> The creator owns the queue. {@link #close()} lets the items accepted so
 * far run and then completes the process (success); submissions after that are refused.
 * {@link #process()}{@code .cancel()}, a failure (an item that throws) and executor shutdown
 * complete it with that error; the items not yet run are abandoned with it. Completion runs the
 * builder's completion callback and signals the process's dependents, as for any process.
 *
 * <p>Thread-safety: every method is thread-safe; any number of threads may submit.
 */
@ProviderType
public interface QueueProcess {

    /** One piece of work run by a queue process. */
    @ConsumerType
    @FunctionalInterface
    interface Item {
        /**
         * Runs the item on a worker, inside the queue process's drain. Must be short and must not
         * block. Throwing a {@link StatusException} (any other {@link RuntimeException} becomes
         * {@code INTERNAL}) fails the queue process: it completes with that error and the items
         * behind this one are abandoned.
         *
         * @param worker the calling worker; valid only during this call
         */
        void run(WorkerContext worker);

        /**
         * Called instead of {@link #run} when the item will never run: the queue failed, was
         * cancelled or shut down before reaching it, or {@code submit} refused it. Called once,
         * on the thread that completes the queue process or on the submitting thread. Must not
         * block; exceptions are logged and ignored. The default does nothing.
         *
         * @param reason the queue process's error, or FAILED_PRECONDITION if it was closed
         */
        default void abandon(StatusException reason) {
        }
    }

    /** Configures a queue process. Not thread-safe; use from one thread, then {@link #build()}. */
    @ProviderType
    interface Builder {
        /** Scope the underlying process belongs to (pending from build until completion). */
        Builder scope(Scope scope);

        /** Called once when the queue process completes; see {@link Process.CompletionCallback}. */
        Builder onComplete(Process.CompletionCallback callback);

        /**
         * Items one drain call runs at most before it returns to its worker (default 64); the
         * worker calls drain again at once while items remain.
         *
         * @throws StatusException INVALID_ARGUMENT if below 1
         */
        Builder itemsPerDrain(int count);

        /**
         * Creates the queue process (its process is created and registered, not yet scheduled:
         * it is scheduled by the first submission).
         *
         * @throws StatusException FAILED_PRECONDITION if the executor has been shut down
         */
        QueueProcess build();
    }

    /** Name given at creation, for logs and errors. */
    String name();

    /**
     * Queues {@code item} to run after the items submitted before it. Lock-free; never blocks.
     *
     * @return true if accepted; false if the queue was already closed or terminal, in which case
     *     {@code item.abandon(reason)} has been called on this thread
     * @throws NullPointerException if {@code item} is null
     */
    boolean submit(Item item);

    /**
     * Stops accepting items; the queue process completes successfully once the items accepted
     * before this call have run. Idempotent; a no-op on a terminal queue.
     */
    void close();

    /**
     * The underlying process, for its state, error, {@link Process#cancel()} and
     * {@link Process#addDependent} (before the first submission). If it is itself a dependent
     * (suspended), items queue up and run once it is activated. Its wake budget is fixed:
     * {@link Process#setWakeBudget} with a value other than 1 throws FAILED_PRECONDITION.
     * {@link Process#schedule()} on it is harmless (one empty drain).
     */
    Process process();
}
