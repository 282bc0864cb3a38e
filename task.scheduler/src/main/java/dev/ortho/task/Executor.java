package dev.ortho.task;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.task.internal.ExecutorImpl;
import java.time.Duration;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A pool of worker threads that drain {@link Process processes} cooperatively (IREE's
 * {@code iree_task_executor_t}).
 *
 * <p>Workers ({@code ortho-worker-N}, daemon threads, one per topology group by default) loop
 * over the compute slots (processes drained by many workers) and the immediate list (processes
 * drained by one worker at a time), then spin for a while and finally park. Scheduling a process
 * posts directly to idle workers; each woken worker relays further wake-ups (a wake tree)
 * before it starts draining.
 *
 * <p>Lifetime: the creator owns the executor and must {@link #close()} it (or
 * {@link #shutdown(Duration)}); shutdown cancels every live process, waits a bounded time for
 * them to complete and for the workers to exit. All methods are thread-safe.
 */
@ProviderType
public interface Executor extends AutoCloseable {

    /** Returns a builder with defaults: detected topology, 50 µs spin, round-robin scan. */
    static Builder builder() {
        return new Builder();
    }

    /**
     * Starts configuring a process run by this executor.
     *
     * @param name for logs and errors
     * @param drain the work function; see {@link DrainFunction}
     * @throws StatusException FAILED_PRECONDITION (when {@code build()} is called) if the
     *     executor has been shut down
     */
    Process.Builder newProcess(String name, DrainFunction drain);

    /**
     * Starts configuring a {@link QueueProcess}: a reusable budget-1 process that runs submitted
     * items, for work too small to deserve a process each.
     *
     * @param name for logs and errors
     * @since 1.1
     */
    QueueProcess.Builder newQueueProcess(String name);

    /** Number of worker threads. */
    int workerCount();

    /** Current compute-slot scan policy. */
    ScanPolicy scanPolicy();

    /** Switches the scan policy; workers adopt it on their next scan. */
    void setScanPolicy(ScanPolicy policy);

    /**
     * Sum of the wake budgets of the processes now on the run lists (a snapshot); the executor
     * uses it to decide how long idle workers spin before parking.
     */
    int aggregateBudget();

    /** A snapshot of per-worker states and counters. Counters are read without locking. */
    ExecutorStats stats();

    /**
     * Cancels every live process, waits until they have completed, stops the workers, and
     * returns. Processes scheduled afterwards are cancelled on the calling thread. Idempotent;
     * callable from any thread except a worker of this executor.
     *
     * @param timeout upper bound for the whole shutdown
     * @return true if every process completed and every worker exited in time; false if a
     *     drain function did not return (its worker, a daemon thread, is left behind)
     * @throws StatusException FAILED_PRECONDITION if called from one of this executor's workers
     */
    boolean shutdown(Duration timeout);

    /** {@link #shutdown(Duration)} with a 10 second bound; logs a warning if that is missed. */
    @Override
    void close();

    /**
     * Executor configuration. Not thread-safe; {@link #build()} may be called more than once.
     */
    final class Builder {
        private Topology topology;
        private int workerCount;
        private long spinNanos = 50_000L;
        private long lingerNanos;
        private boolean adaptiveLinger;
        private ScanPolicy scanPolicy = ScanPolicy.ROUND_ROBIN;
        private String name = "ortho";

        private Builder() {
        }

        /** Topology whose groups decide the default worker count (default: detected). */
        public Builder topology(Topology topology) {
            this.topology = topology;
            return this;
        }

        /**
         * Fixed worker count overriding the topology's group count; 0 (default) means one per
         * group.
         *
         * @throws StatusException INVALID_ARGUMENT if negative or above 256
         */
        public Builder workerCount(int count) {
            if (count < 0 || count > Topology.MAX_GROUPS) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT,
                        "worker count " + count + " outside [0, " + Topology.MAX_GROUPS + "]");
            }
            this.workerCount = count;
            return this;
        }

        /**
         * Base time an idle worker spins before parking; scaled up while the aggregate budget
         * exceeds the number of active workers. 0 parks at once.
         *
         * @throws StatusException INVALID_ARGUMENT if negative
         */
        public Builder spinNanos(long nanos) {
            if (nanos < 0) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "spin time " + nanos + " ns is negative");
            }
            this.spinNanos = nanos;
            return this;
        }

        /**
         * How long a worker that has just finished work polls for more (yielding its core
         * between polls) before its idle path (spin, then park); 0 (default) never. At most one worker lingers at a time, and a
         * scheduler that finds it lingering hands it the work instead of waking a parked
         * worker, so work that arrives within the window (the next submission of a caller that
         * was waiting for the last one) starts with no wake-up at all. Unlike
         * {@link #spinNanos}, an executor that stays idle spins nowhere.
         *
         * @throws StatusException INVALID_ARGUMENT if negative
         */
        public Builder lingerNanos(long nanos) {
            if (nanos < 0) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "linger time " + nanos + " ns is negative");
            }
            this.lingerNanos = nanos;
            this.adaptiveLinger = false;
            return this;
        }

        /**
         * Adaptive linger (replaces {@link #lingerNanos}): a worker that has just finished work
         * lingers for up to {@code windowNanos}, as with {@code lingerNanos(windowNanos)}, but
         * only while work has been coming back quickly: it lingers after a work phase only if,
         * the last time it ran out of work, new work reached it within {@code windowNanos}.
         * When work stops (the window passes with nothing new) or arrives more slowly than the
         * window, the worker parks as soon as it runs out of work, so an executor that has gone
         * idle, or that gets work at a lower rate, spins nowhere. A lingering worker that lost
         * its core to other threads for longer than the window (at least 0.5 ms: an
         * oversubscribed machine, where work handed to it waits until it gets the core back,
         * and an unparked worker would have been run sooner) stops lingering for a while (1 ms,
         * doubling up to 64 ms while it keeps happening). 0 never lingers.
         *
         * @throws StatusException INVALID_ARGUMENT if negative
         * @since 1.4
         */
        public Builder adaptiveLingerNanos(long windowNanos) {
            if (windowNanos < 0) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT,
                        "adaptive linger window " + windowNanos + " ns is negative");
            }
            this.lingerNanos = windowNanos;
            this.adaptiveLinger = true;
            return this;
        }

        /** Compute-slot scan policy (default {@link ScanPolicy#ROUND_ROBIN}). */
        public Builder scanPolicy(ScanPolicy policy) {
            this.scanPolicy = java.util.Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** Executor name for logs and stats (default {@code ortho}). */
        public Builder name(String name) {
            this.name = java.util.Objects.requireNonNull(name, "name");
            return this;
        }

        /** Creates the executor and starts its workers. The caller owns the result. */
        public Executor build() {
            Topology t = topology != null ? topology : Topology.detect();
            int count = workerCount > 0 ? workerCount : t.groupCount();
            return new ExecutorImpl(name, t, count, spinNanos, lingerNanos, adaptiveLinger, scanPolicy);
        }
    }
}
