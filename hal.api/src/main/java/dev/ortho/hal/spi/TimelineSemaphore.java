package dev.ortho.hal.spi;

import dev.ortho.hal.trace.HalTracing;
import dev.ortho.base.Deadline;
import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.Timepoint;
import dev.ortho.hal.TimepointCallback;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.frontier.SemaphoreScope;
import dev.ortho.hal.frontier.TimelineFrontiers;
import dev.ortho.hal.trace.SemaphoreSignalEvent;
import dev.ortho.hal.trace.SemaphoreWaitEvent;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A host-memory timeline semaphore that drivers use as their {@link Semaphore} (IREE's software
 * {@code iree_async_semaphore_t}); also usable on its own, e.g. to signal a device from the host.
 *
 * <p>Signalling is one CAS on the payload plus one volatile read when nobody waits; the lock is
 * taken to dispatch timepoints and, where frontiers are tracked, to record a signal's frontier in
 * order (the frontier table is made by the first signal that carries one), and callbacks run after
 * it is released. A blocking
 * {@link #await} parks the thread on a private timepoint.
 *
 * <p>Thread-safe. Starts with one reference, owned by the creator; the last {@link #release()}
 * cancels pending timepoints with {@code CANCELLED}.
 */
public final class TimelineSemaphore implements Semaphore {
    private static final Logger LOG = LoggerFactory.getLogger(TimelineSemaphore.class);
    private static final VarHandle VALUE;
    private static final VarHandle FAILURE;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            VALUE = lookup.findVarHandle(TimelineSemaphore.class, "value", long.class);
            FAILURE = lookup.findVarHandle(TimelineSemaphore.class, "failure", StatusException.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A registered timepoint; doubly linked into the pending list while {@code linked}. */
    private final class Node implements Timepoint {
        final long value;
        final TimepointCallback callback;
        Node prev;
        Node next;
        boolean linked; // guarded by lock

        Node(long value, TimepointCallback callback) {
            this.value = value;
            this.callback = callback;
        }

        @Override
        public boolean cancel() {
            synchronized (lock) {
                if (!linked) {
                    return false;
                }
                unlinkLocked(this);
                return true;
            }
        }
    }

    /**
     * How long {@link #await} polls before it parks: about the time the OS takes to wake a parked
     * thread on a busy machine, several times over, so a wait for a short queue operation ends
     * without one, and short enough to cost little when the operation is long.
     */
    private static final long AWAIT_SPIN_NANOS = 50_000L;

    /** Default number of recent values whose frontiers are kept. */
    public static final int DEFAULT_FRONTIER_VALUES = 8;
    /** Default number of axes each recorded frontier holds before it evicts and taints. */
    public static final int DEFAULT_FRONTIER_AXES = 8;

    /** The name, or its text before {@link #nameNumber}; see {@link #name()}. */
    private final String namePrefix;
    /** Appended to {@link #namePrefix} in decimal when the name is first needed; -1: none. */
    private final long nameNumber;
    private String name; // built once when first needed (a benign race: equal strings)
    private final SemaphoreScope scope;
    /** Values whose frontiers are kept; 0: frontier tracking is off. */
    private final int frontierValues;
    /** Axes each kept frontier holds. */
    private final int frontierAxes;
    /**
     * Per-value frontiers, made by the first signal that carries a frontier (or comes from outside);
     * null before: until then every signal recorded the empty untainted frontier, which needs no
     * table (a fence's semaphore on a synchronous device never gets one). Written under
     * {@link #lock} before the value it records advances; readers read the value first
     * ({@link #frontierAt}).
     */
    private volatile TimelineFrontiers frontiers;
    private final Object lock = new Object();
    private final RefCount references = new RefCount();
    private volatile long value;
    private volatile StatusException failure;
    /** Count of linked timepoints; written under lock, read lock-free on the signal path. */
    private volatile int pending;
    private Node head; // guarded by lock
    private boolean destroyed; // guarded by lock
    /** Who may run the work that signals this semaphore on a waiting thread; null: nobody. */
    private volatile WaitHelper waitHelper;

    /**
     * Lets a thread that {@linkplain #await waits} run the work that will signal the value it waits
     * for instead of parking (a driver's executor, e.g. local-task's block processor). Called by
     * {@link #await} before it polls or parks, on the waiting thread.
     */
    public interface WaitHelper {
        /**
         * Runs work that signals {@code semaphore} at {@code target} or later, if there is some that
         * the calling thread can run now; returns when there is none left to claim, when
         * {@code target} is reached or the semaphore failed, or at {@code deadlineNanos} (a
         * {@link System#nanoTime} deadline; at most one unit of work, e.g. one workgroup, may run past
         * it). Never throws a failure of the work into the caller: the work's failure fails its
         * semaphores, which {@link #await} then reports.
         */
        void help(TimelineSemaphore semaphore, long target, long deadlineNanos);
    }

    /**
     * Runs, on the calling thread, work that signals {@code target}, if this semaphore's
     * {@linkplain #setWaitHelper wait helper} has some to run now (see {@link WaitHelper#help});
     * returns at once otherwise. Waits ({@link #await}, {@code SemaphoreList} wait-all/any) call
     * it before they park. Never throws the work's failure.
     *
     * @param deadlineNanos a {@link System#nanoTime} deadline
     */
    public void help(long target, long deadlineNanos) {
        WaitHelper helper = waitHelper;
        if (helper != null && value < target) {
            helper.help(this, target, deadlineNanos);
        }
    }

    /**
     * Sets who may run the work that signals this semaphore on waiting threads (a hint: the last
     * setter wins, and a helper must check that what it would run signals the awaited value).
     * {@code null} removes it.
     */
    public void setWaitHelper(WaitHelper helper) {
        if (waitHelper != helper) {
            waitHelper = helper;
        }
    }

    /**
     * Creates a semaphore at {@code initialValue} that keeps the frontiers of its last
     * {@link #DEFAULT_FRONTIER_VALUES} values, {@link #DEFAULT_FRONTIER_AXES} axes each.
     *
     * @param name used in error messages, e.g. {@code "local-sync queue 0"}
     * @throws StatusException OUT_OF_RANGE if {@code initialValue} is outside
     *     {@code [0, MAX_VALUE]}
     */
    public TimelineSemaphore(String name, long initialValue) {
        this(name, initialValue, DEFAULT_FRONTIER_VALUES, DEFAULT_FRONTIER_AXES);
    }

    /**
     * Creates a semaphore at {@code initialValue} with visibility {@code scope}: a
     * {@link SemaphoreScope#QUEUE_LOCAL} one keeps no frontiers (its signal is one CAS, no lock;
     * {@link #frontierAt} reports reached values as unknown: empty and tainted), every wider
     * scope keeps those of its last {@link #DEFAULT_FRONTIER_VALUES} values.
     *
     * @throws StatusException INVALID_ARGUMENT if {@code scope} is null; OUT_OF_RANGE if
     *     {@code initialValue} is outside {@code [0, MAX_VALUE]}
     */
    public TimelineSemaphore(String name, long initialValue, SemaphoreScope scope) {
        this(name, -1, initialValue, scope);
    }

    /**
     * As {@link #TimelineSemaphore(String, long, SemaphoreScope)}, named {@code namePrefix}
     * followed by {@code number} in decimal ({@code "local-sync semaphore 17"}). The name's text
     * is built only when something needs it (an error message, a trace event, {@link #toString}):
     * devices create a semaphore for every fence of every call, and most are never named.
     *
     * @throws StatusException as {@link #TimelineSemaphore(String, long, SemaphoreScope)}
     * @since 1.2
     */
    public TimelineSemaphore(String namePrefix, long number, long initialValue, SemaphoreScope scope) {
        this(namePrefix, number, initialValue, requireScope(namePrefix, number, scope),
                scope == SemaphoreScope.QUEUE_LOCAL ? 0 : DEFAULT_FRONTIER_VALUES, DEFAULT_FRONTIER_AXES);
    }

    private static SemaphoreScope requireScope(String namePrefix, long number, SemaphoreScope scope) {
        if (scope == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "semaphore '" + nameOf(namePrefix, number)
                    + "' scope is null");
        }
        return scope;
    }

    private static String nameOf(String namePrefix, long number) {
        return number < 0 ? namePrefix : namePrefix + number;
    }

    /** The name (built on first use). */
    private String name() {
        String n = name;
        if (n == null) {
            n = nameOf(namePrefix, nameNumber);
            name = n;
        }
        return n;
    }

    /**
     * Creates a semaphore at {@code initialValue} keeping the frontiers of its last
     * {@code frontierValues} values with up to {@code frontierAxes} axes each; 0 values turns
     * frontier tracking off (then {@link #frontierAt} reports reached values as unknown: empty
     * and tainted).
     *
     * @throws StatusException OUT_OF_RANGE if {@code initialValue} is outside
     *     {@code [0, MAX_VALUE]}; INVALID_ARGUMENT or OUT_OF_RANGE for a bad capacity
     */
    public TimelineSemaphore(String name, long initialValue, int frontierValues, int frontierAxes) {
        this(name, -1, initialValue, SemaphoreScope.PROCESS, frontierValues, frontierAxes);
    }

    private TimelineSemaphore(String namePrefix, long nameNumber, long initialValue, SemaphoreScope scope,
            int frontierValues, int frontierAxes) {
        this.namePrefix = namePrefix;
        this.nameNumber = nameNumber;
        this.scope = scope;
        checkRange(initialValue);
        if (frontierValues < 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "semaphore '" + name()
                    + "' frontier value capacity " + frontierValues + " is negative");
        }
        if (frontierValues > 0) {
            TimelineFrontiers.checkCapacities(frontierValues, frontierAxes);
        }
        this.frontierValues = frontierValues;
        this.frontierAxes = frontierAxes;
        this.value = initialValue;
    }

    @Override
    public SemaphoreScope scope() {
        return scope;
    }

    @Override
    public long query() {
        StatusException failed = failure;
        if (failed != null) {
            throw copyOf(failed);
        }
        return value;
    }

    @Override
    public StatusException failure() {
        return failure;
    }

    @Override
    public void signal(long newValue) {
        signal(newValue, null);
    }

    @Override
    public void signal(long newValue, Frontier frontier) {
        checkRange(newValue);
        if (frontierValues == 0) {
            advance(newValue);
        } else {
            // one signaller at a time records, so the frontier side sees values in order
            synchronized (lock) {
                TimelineFrontiers table = frontier == null ? frontiers : frontiersLocked();
                advance(newValue);
                if (table != null) {
                    table.signal(newValue, frontier);
                }
            }
        }
        if (HalTracing.AVAILABLE) {
            if (SemaphoreSignalEvent.enabled()) { // the name is built only for a recording
                SemaphoreSignalEvent.record(name(), newValue);
            }
        }
        // Dekker with addTimepoint: we wrote value, then read pending; it writes pending, then
        // reads value. One of the two sees the other's write, so no timepoint is stranded.
        if (pending != 0) {
            dispatch(detachReached(newValue), null);
        }
    }

    /**
     * Advances the payload to {@code value} on behalf of work this process did not witness (an
     * imported event, another process or driver): the value's frontier is {@code partial} (what
     * is known; {@code null} for nothing) marked tainted, and the untainted watermark does not
     * move (seed 002, "Taint"), so no waiter elides a wait on its strength. Without frontier
     * tracking this is a plain {@link #signal(long)}.
     *
     * @throws StatusException as {@link #signal(long)}
     */
    public void signalExternal(long newValue, Frontier partial) {
        checkRange(newValue);
        if (frontierValues == 0) {
            advance(newValue);
        } else {
            synchronized (lock) {
                TimelineFrontiers table = frontiersLocked();
                advance(newValue);
                table.signalExternal(newValue, partial);
            }
        }
        if (pending != 0) {
            dispatch(detachReached(newValue), null);
        }
    }

    /**
     * Whether {@code value} may have been reached by unwitnessed work: above the untainted
     * watermark, or always when frontier tracking is off (nothing is known then).
     */
    public boolean isValueTainted(long value) {
        if (frontierValues == 0) {
            return true;
        }
        long reached = this.value; // before frontiers, as in frontierAt
        TimelineFrontiers table = frontiers;
        return table != null ? table.isValueTainted(value) : Long.compareUnsigned(value, reached) > 0;
    }

    /**
     * The frontier table, made now if no signal needed it before: every value reached so far
     * recorded the empty untainted frontier, which is what a table starting at the current value
     * reports for them. Called under {@link #lock}.
     */
    private TimelineFrontiers frontiersLocked() {
        TimelineFrontiers table = frontiers;
        if (table == null) {
            table = new TimelineFrontiers(value, frontierValues, frontierAxes);
            frontiers = table; // release: published before the value this signal advances
        }
        return table;
    }

    private void advance(long newValue) {
        long current;
        do {
            StatusException failed = failure;
            if (failed != null) {
                throw copyOf(failed);
            }
            current = value;
            if (newValue <= current) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "semaphore '" + name()
                        + "' cannot be signalled to " + newValue + ": it is already at " + current);
            }
            // release: publishes everything the signaller wrote before signalling to waiters that
            // acquire-read the value (query, await, timepoint dispatch)
        } while (!VALUE.compareAndSet(this, current, newValue));
    }

    @Override
    public boolean frontierAt(long target, Frontier out) {
        StatusException failed = failure;
        if (failed != null) {
            throw copyOf(failed);
        }
        if (frontierValues > 0) {
            // The value first, then the table: a table published after the value was read records
            // only values above it, so without one every value up to it had the empty frontier.
            long reached = value;
            TimelineFrontiers table = frontiers;
            if (table != null) {
                return table.frontierAt(target, out);
            }
            if (reached < target) {
                return false;
            }
            out.reset();
            return true;
        }
        if (value < target) {
            return false;
        }
        out.reset();
        out.markTainted(); // reached, but nothing recorded: claim no knowledge
        return true;
    }

    @Override
    public void fail(StatusException status) {
        if (status == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "semaphore '" + name()
                    + "' cannot fail with a null status");
        }
        // first failure wins; pairs with the volatile reads of failure on every path
        if (!FAILURE.compareAndSet(this, (StatusException) null, status)) {
            return;
        }
        Node detached;
        synchronized (lock) {
            detached = detachAllLocked();
        }
        dispatch(detached, status);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Polls the value for up to 50 µs (bounded by the timeout), yielding the core between
     * polls, before it registers a timepoint and parks: a signal that comes within that window (a
     * short queue operation) is seen with no park/unpark round trip through the OS.
     */
    @Override
    public void await(long target, Timeout timeout) {
        if (value >= target) {
            return;
        }
        StatusException failed = failure;
        if (failed != null) {
            throw copyOf(failed);
        }
        long deadline = timeout.toDeadlineNanos();
        if (deadline == Deadline.INFINITE_PAST_NANOS) {
            throw deadlineExceeded(target);
        }
        help(target, deadline); // runs the signalling work here instead of parking
        if (value >= target) {
            return;
        }
        if (spinUntil(target, deadline)) {
            return;
        }
        Waiter waiter = new Waiter(Thread.currentThread());
        SemaphoreWaitEvent event = HalTracing.AVAILABLE ? SemaphoreWaitEvent.start(name(), target) : null; // null unless recording
        Timepoint timepoint = addTimepoint(target, waiter);
        while (!waiter.done) {
            if (Thread.currentThread().isInterrupted()) {
                if (timepoint.cancel()) {
                    throw new StatusException(StatusCode.ABORTED, "wait on semaphore '" + name()
                            + "' for value " + target + " was interrupted");
                }
                Thread.onSpinWait(); // the callback is running; it finishes without blocking
                continue;
            }
            long remaining = Deadline.remainingNanos(deadline, System.nanoTime());
            if (remaining == 0) {
                if (timepoint.cancel()) {
                    throw deadlineExceeded(target);
                }
                Thread.onSpinWait();
                continue;
            }
            LockSupport.parkNanos(this, remaining);
        }
        if (event != null) {
            SemaphoreWaitEvent.finish(event, waiter.failure != null);
        }
        if (waiter.failure != null) {
            throw copyOf(waiter.failure);
        }
    }

    /**
     * Polls for {@code target} up to {@link #AWAIT_SPIN_NANOS} and not past {@code deadline};
     * true if reached (a failure is left for the caller's timepoint, which reports it).
     */
    private boolean spinUntil(long target, long deadline) {
        long start = System.nanoTime();
        long limit = Math.min(AWAIT_SPIN_NANOS, Deadline.remainingNanos(deadline, start));
        while (System.nanoTime() - start < limit) {
            if (value >= target) {
                return true;
            }
            if (failure != null || Thread.currentThread().isInterrupted()) {
                return false;
            }
            Thread.yield(); // not onSpinWait: on a loaded machine the thread we wait for may need this core
        }
        return value >= target;
    }

    @Override
    public Timepoint addTimepoint(long target, TimepointCallback callback) {
        Node node = new Node(target, callback);
        StatusException failed;
        synchronized (lock) {
            pending++; // volatile write first: see the Dekker note in signal()
            failed = destroyed ? destroyedStatus() : failure;
            if (failed == null && value < target) {
                linkLocked(node);
                return node;
            }
            pending--;
        }
        invoke(node, failed);
        return node;
    }

    /**
     * Whether the caller holds the only reference to this semaphore and nothing is pending on it:
     * not failed, no timepoint or waiter linked. Then nobody else can observe or change it, so its
     * holder may reuse it at a later value (a fence pool moving a reached fence on). The answer is
     * exact only for a caller that holds the only reference (else another holder may change it at
     * once, and the answer is false anyway).
     *
     * @since 1.4
     */
    public boolean isIdleSoleReference() {
        if (references.count() != 1 || failure != null) {
            return false;
        }
        synchronized (lock) {
            return !destroyed && head == null;
        }
    }

    @Override
    public void retain() {
        references.retain();
    }

    @Override
    public void release() {
        if (!references.release(this)) {
            return;
        }
        Node detached;
        synchronized (lock) {
            destroyed = true;
            detached = detachAllLocked();
        }
        if (detached != null) { // the status only for timepoints left: a semaphore dies once per submission
            dispatch(detached, destroyedStatus());
        }
    }

    @Override
    public String toString() {
        StatusException failed = failure;
        return "semaphore '" + name() + "' @" + value + (failed == null ? "" : " failed: " + failed);
    }

    private StatusException destroyedStatus() {
        return new StatusException(StatusCode.CANCELLED, "semaphore '" + name() + "' was destroyed");
    }

    private StatusException deadlineExceeded(long target) {
        return new StatusException(StatusCode.DEADLINE_EXCEEDED, "semaphore '" + name()
                + "' did not reach " + target + " in time (at " + value + ")");
    }

    private static void checkRange(long candidate) {
        if (candidate < 0 || candidate > MAX_VALUE) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "semaphore value " + candidate
                    + " is outside [0, " + MAX_VALUE + "]");
        }
    }

    /** Waiters get their own exception (same code and message) so they can annotate it freely. */
    static StatusException copyOf(StatusException failure) {
        return new StatusException(failure.code(), failure.getMessage(), failure);
    }

    private Node detachReached(long reached) {
        synchronized (lock) {
            Node detached = null;
            Node node = head;
            while (node != null) {
                Node next = node.next;
                if (node.value <= reached) {
                    unlinkLocked(node);
                    node.next = detached; // reuse next as the detached chain's link
                    detached = node;
                }
                node = next;
            }
            return detached;
        }
    }

    private Node detachAllLocked() {
        Node detached = null;
        Node node = head;
        while (node != null) {
            Node next = node.next;
            unlinkLocked(node);
            node.next = detached;
            detached = node;
            node = next;
        }
        return detached;
    }

    private void linkLocked(Node node) {
        node.linked = true;
        node.prev = null;
        node.next = head;
        if (head != null) {
            head.prev = node;
        }
        head = node;
    }

    private void unlinkLocked(Node node) {
        if (node.prev != null) {
            node.prev.next = node.next;
        } else {
            head = node.next;
        }
        if (node.next != null) {
            node.next.prev = node.prev;
        }
        node.prev = null;
        node.next = null;
        node.linked = false;
        pending--;
    }

    private void dispatch(Node detached, StatusException status) {
        while (detached != null) {
            Node next = detached.next;
            detached.next = null;
            invoke(detached, status);
            detached = next;
        }
    }

    private void invoke(Node node, StatusException status) {
        try {
            node.callback.onTimepoint(this, node.value, status);
        } catch (RuntimeException e) {
            LOG.warn("timepoint callback for {} at {} threw; ignored", this, node.value, e);
        }
    }

    /** Parks a host thread until its timepoint fires. */
    private static final class Waiter implements TimepointCallback {
        private final Thread thread;
        volatile boolean done;
        StatusException failure; // written before the volatile write of done

        Waiter(Thread thread) {
            this.thread = thread;
        }

        @Override
        public void onTimepoint(Semaphore semaphore, long value, StatusException status) {
            failure = status;
            done = true; // release: publishes failure to the parked thread's volatile read
            LockSupport.unpark(thread);
        }
    }
}
