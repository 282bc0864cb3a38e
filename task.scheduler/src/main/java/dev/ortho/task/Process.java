package dev.ortho.task;

import dev.ortho.base.StatusException;
import java.util.function.IntFunction;
import org.osgi.annotation.versioning.ConsumerType;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The one unit of work of the executor (IREE's {@code iree_task_process_t}): a
 * {@link DrainFunction} that workers call repeatedly, each call doing bounded work, until it
 * reports completion.
 *
 * <p><b>Activation.</b> A process is created by {@link Executor#newProcess} with a suspend count
 * (the number of outstanding dependencies, plus one for every {@link #addDependent} edge that
 * targets it). It is runnable when the count is zero. {@link #signal()} removes one suspension;
 * the thread that drives the count to zero schedules the process itself (direct wake, no
 * coordinator). A process created with count zero is started with {@link #schedule()}.
 *
 * <p><b>Placement.</b> A process whose wake budget is one (and that was not built with
 * {@link Builder#computeSlot()}) goes to the executor's immediate list and is drained by one
 * worker at a time. Otherwise it is placed in a compute slot and drained by every worker that
 * finds it. The budget is a wake hint, never an admission limit.
 *
 * <p><b>Completion.</b> When a drain reports {@link DrainResult#complete()}, fails, or the
 * process is cancelled, the executor (exactly once) records the terminal state, calls the
 * completion callback, and signals every dependent. A failed or cancelled process passes its
 * first error to its dependents: they still activate, see the error and complete without being
 * drained. The release callback runs after the last worker has left {@code drain}; from then on
 * nothing in the executor touches the process's user state.
 *
 * <p><b>Runs.</b> A process runs once: once terminal it never runs again, unless it was built
 * with {@link Builder#reusable()} and its owner starts another run with {@link #rearm()} (same
 * drain function, callbacks, scope, worker states and dependents; the state, suspend count,
 * error and wake budget start over). Every statement about "the process" in this interface is
 * about one run; callbacks run once per run.
 *
 * <p>Thread-safety: every method is thread-safe unless it says otherwise ({@link #rearm()}
 * does).
 */
@ProviderType
public interface Process {

    /**
     * Lifecycle states; transitions are monotonic within a run (IREE's
     * {@code iree_task_process_state_t}); only {@link Process#rearm()} goes back to SUSPENDED.
     */
    enum State {
        /** Waiting for its suspend count to reach zero. */
        SUSPENDED,
        /** Activated; on a run list, being drained, or sleeping until {@link #schedule()}. */
        RUNNABLE,
        /** Finished, successfully or with an error. */
        COMPLETED,
        /** Cancelled by {@link #cancel()} or executor shutdown. */
        CANCELLED
    }

    /** Called once when a process reaches a terminal state. */
    @ConsumerType
    @FunctionalInterface
    interface CompletionCallback {
        /**
         * Runs on the thread that completed the process (a worker, or a thread calling
         * {@link #cancel()}); must be short and must not block. Other workers may still be
         * inside {@code drain}, so resources that drain uses must be freed in the
         * {@link ReleaseCallback}, not here. Exceptions are logged and ignored.
         *
         * @param error null on success, else the process's first error
         */
        void onComplete(Process process, StatusException error);
    }

    /**
     * Called once after completion when no worker is inside {@code drain} any more. For a
     * {@link Builder#reusable() reusable} process this is where a run ends: from the start of
     * this call on, the process may be {@link Process#rearm() re-armed}.
     */
    @ConsumerType
    @FunctionalInterface
    interface ReleaseCallback {
        /** Frees whatever drain used. Must not block; exceptions are logged and ignored. */
        void onRelease(Process process);
    }

    /**
     * Configures a process before it exists. Not thread-safe; use from one thread, then call
     * {@link #build()} once.
     */
    @ProviderType
    interface Builder {
        /** Initial suspend count (default 0); {@link #signal()} removes one. Must be ≥ 0. */
        Builder suspendCount(int count);

        /** Initial wake budget (default 1); must be ≥ 1. See {@link Process#setWakeBudget}. */
        Builder wakeBudget(int budget);

        /** Uses a compute slot even while the wake budget is one (IREE's COMPUTE_SLOT flag). */
        Builder computeSlot();

        /** Scan priority for {@link ScanPolicy#PRIORITY}; higher first, default 0. */
        Builder priority(int priority);

        /** Scope the process belongs to (counted as pending from build until completion). */
        Builder scope(Scope scope);

        /** Completion callback; see {@link CompletionCallback}. */
        Builder onComplete(CompletionCallback callback);

        /** Release callback; see {@link ReleaseCallback}. */
        Builder onRelease(ReleaseCallback callback);

        /**
         * Factory for per-worker state (IREE: state indexed by worker, owned by the worker).
         * Called at most once per worker, lazily on that worker's thread; see
         * {@link Process#workerState(WorkerContext)}.
         */
        Builder workerState(IntFunction<?> factory);

        /**
         * Makes the process reusable: after a run is released (see {@link ReleaseCallback}) its
         * owner may start another run with {@link Process#rearm()} instead of building a new
         * process (no allocation, no builder). Default: the process runs once.
         *
         * @since 1.3
         */
        Builder reusable();

        /** Creates the process in state {@link State#SUSPENDED}. */
        Process build();
    }

    /** Name given at creation, for logs and errors. */
    String name();

    /** Current state; may change right after the call. */
    State state();

    /** True once the process is {@link State#COMPLETED} or {@link State#CANCELLED}. */
    boolean isTerminal();

    /** Current suspend count (a snapshot). */
    int suspendCount();

    /** The first error recorded for this process, or null. */
    StatusException error();

    /** Current wake budget (a snapshot). */
    int wakeBudget();

    /**
     * Updates the wake budget; callable at any time, typically from {@code drain} at a region
     * transition. Raising the budget of a process that sits in a compute slot wakes up to the
     * difference in extra workers at once; lowering it lets excess workers park after their
     * next empty scan.
     *
     * @throws StatusException INVALID_ARGUMENT if {@code budget < 1}
     */
    void setWakeBudget(int budget);

    /**
     * Makes {@code dependent} wait for this process: raises its suspend count by one and
     * signals it when this process completes (successfully or not). Must be called before this
     * process is scheduled; {@code dependent} must not have been activated yet.
     *
     * @throws StatusException INVALID_ARGUMENT if {@code dependent} belongs to another executor
     *     or is this process; FAILED_PRECONDITION if this process was already scheduled or the
     *     dependent is no longer suspended
     */
    void addDependent(Process dependent);

    /**
     * Removes one suspension. If this drives the count to zero, the calling thread activates and
     * schedules the process (or, if it already carries an inherited error, queues it for
     * completion). Signals on a terminal process are ignored.
     *
     * @throws StatusException FAILED_PRECONDITION if the count is already zero
     */
    void signal();

    /**
     * Starts a process whose suspend count is zero, or tells a running process that new work is
     * available: a sleeping process is put back on a run list; a process being drained is
     * drained again before it may sleep. Ignored for terminal processes. Executor shut down:
     * the process is cancelled instead.
     *
     * @throws StatusException FAILED_PRECONDITION if the suspend count is not zero
     */
    void schedule();

    /**
     * Cancels the process: records {@code CANCELLED} as its error (unless an error was already
     * recorded) and moves it to {@link State#CANCELLED}. A suspended process is completed on
     * the calling thread; a sleeping one is woken so a worker completes it; a process being
     * drained completes once its current drains return. Dependents inherit the error. No-op on
     * a terminal process.
     */
    void cancel();

    /**
     * Records {@code error} as the process's first error (later errors are ignored) and makes it
     * complete: workers stop calling drain. Intended for drain functions and for code feeding
     * the process.
     */
    void fail(StatusException error);

    /**
     * Starts another run of a {@link Builder#reusable() reusable} process whose last run has
     * been released: it goes back to {@link State#SUSPENDED} with the suspend count it was built
     * with plus one for every {@link #addDependent} edge that targets it, no error, and the wake
     * budget it was built with. Kept: the drain function, callbacks, scope (it counts as pending
     * again), worker states, and every dependent added so far (more may be added before the
     * next {@link #schedule()}; an edge added again is a second edge). The executor holds it as
     * live again until this run completes (shutdown cancels it).
     *
     * <p>Ownership and ordering (not thread-safe): the process has one owner, the thread that
     * calls this; the call must happen after the previous run's {@link ReleaseCallback} started
     * (inside it, or ordered after it, e.g. through a latch it counts down), and nothing else may
     * use the process (schedule, signal, cancel, fail, addDependent, rearm) until this returns.
     * Re-arm every process of a graph before any process it depends on can run again:
     * a signal that reaches a process whose previous run is over, before its re-arm, is lost.
     *
     * @throws StatusException FAILED_PRECONDITION if the process was not built reusable, if its
     *     run has not been released yet (it is left as it was), or if the executor is shut down
     *     (the re-arm either did not happen, or the new run was cancelled at once and its
     *     completion callback ran on this thread)
     * @since 1.3
     */
    void rearm();

    /**
     * The calling worker's private state for this process, created by the builder's factory on
     * first use. Only the worker passed in may use the returned object; it is never shared.
     *
     * @throws StatusException FAILED_PRECONDITION if the process has no worker-state factory
     */
    <S> S workerState(WorkerContext worker);
}
