package dev.ortho.hal.cpu.internal.task;

import dev.ortho.base.StatusException;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.HostCall;
import dev.ortho.hal.Resource;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.Timepoint;
import dev.ortho.hal.TimepointCallback;
import dev.ortho.hal.cpu.internal.command.BlockProgram;
import dev.ortho.hal.cpu.internal.heap.HeapBuffer;
import dev.ortho.hal.spi.RecordedCommand;
import dev.ortho.hal.trace.QueueOperationEvent;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One submitted queue operation (IREE's {@code iree_hal_task_queue_op_t}): its kind and
 * arguments, its wait and signal lists, the resources it keeps alive until it retires, and its
 * wait count.
 *
 * <p><b>Waits.</b> The wait count starts at the number of waits plus one guard held by the
 * submitting thread while it registers timepoints (plus one for the predecessor on a FIFO
 * queue). Each satisfied timepoint decrements it; the thread that brings it to zero makes the
 * operation ready ({@link TaskQueue#onReady}) — direct wake, no scanning; if that is the
 * submitting thread itself (every wait already reached), it may issue the operation at once. A failed wait retires
 * the operation at once with that failure.
 *
 * <p><b>FIFO queues</b> ({@code queue_order=fifo}): operations are linked in submission order and
 * an operation becomes ready only once its predecessor has <em>finished</em> — retired, and its
 * own predecessor finished (so an operation retired early by a failed wait does not let its
 * successor overtake the ones before it). Waits the queue elided at submission
 * ({@link #elided}, decided by the device's {@link FifoLedger}) register no timepoint; their
 * semaphores are checked for failure when the operation becomes ready, and the provisional ones
 * ({@link #crossElided}: another queue of the device signals the value) are confirmed then, or
 * registered after all ({@link #rearm}).
 *
 * <p><b>Retirement</b> happens exactly once ({@link #claimRetire()}): on success the resources it
 * used are released, then the signals are signalled with the queue's frontier; on failure the
 * signals are failed first; the semaphores are released last (everything by the device after its
 * executor stopped, if it is closing).
 *
 * <p>Thread-safety: the argument fields are written before the operation is published (by the
 * first timepoint registration or the ready-list push) and read-only afterwards; state and
 * counts are atomic; the live-list links are guarded by the device's lock.
 */
final class QueueOp extends MpscQueue.Node implements TimepointCallback {
    enum Kind { BARRIER, HOST_CALL, ALLOCA, DEALLOCA, TRANSFER, DISPATCH, EXECUTE }

    private static final int PENDING = 0;
    private static final int ISSUED = 1;
    private static final int RETIRED = 2;
    private static final Timepoint[] NO_TIMEPOINTS = {};
    private static final Resource[] NO_RESOURCES = {};

    private static final VarHandle WAIT_COUNT;
    private static final VarHandle STATE;
    private static final VarHandle RELEASED;
    private static final VarHandle FIFO_HOLD;
    private static final VarHandle SUCCESSOR;
    /** {@link #successor} once this operation finished: a later link fails and needs no hand-off. */
    private static final Object FINISHED = new Object();

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            WAIT_COUNT = l.findVarHandle(QueueOp.class, "waitCount", int.class);
            STATE = l.findVarHandle(QueueOp.class, "state", int.class);
            RELEASED = l.findVarHandle(QueueOp.class, "released", int.class);
            FIFO_HOLD = l.findVarHandle(QueueOp.class, "fifoHold", int.class);
            SUCCESSOR = l.findVarHandle(QueueOp.class, "successor", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final TaskQueue queue;
    final Kind kind;
    final SemaphoreList waits;
    final SemaphoreList signals;

    // Arguments by kind (written before publication).
    RecordedCommand command;
    BlockProgram program;
    BindingTable bindings;
    HostCall call;
    long[] args;
    long flags;
    HeapBuffer buffer;
    /** The pool an alloca reserves from. */
    DevicePool pool;
    long alignment;
    /** Bytes a transfer touches (decides inline vs. streaming). */
    long transferBytes;
    /** The wait semaphores, the signal semaphores, then what the operation uses. */
    Resource[] retained = NO_RESOURCES;
    /** How many of {@link #retained} are semaphores (they come first). */
    int retainedSemaphores;
    /** The open trace event (null unless a recording was on at submission). */
    QueueOperationEvent trace;

    private Timepoint[] timepoints = NO_TIMEPOINTS;
    private volatile int waitCount;
    private volatile int state;
    private volatile int released;
    /** Set by the queue process on first issue (confined to it). */
    boolean imported;
    /**
     * Bit {@code i}: wait {@code i} was elided at submission (FIFO queues; waits beyond the 64th
     * are never elided). Written before publication.
     */
    long elided;
    /**
     * FIFO: the subset of {@link #elided} that another queue's operation signals, to be confirmed
     * when the operation becomes ready against {@link #expectedAxes}/{@link #expectedEpochs};
     * cleared once decided. Written before publication, then only by the thread that made the
     * operation ready.
     */
    long crossElided;
    /** FIFO: per wait in {@link #crossElided}, the axis and epoch whose passing proves it (else null). */
    long[] expectedAxes;
    long[] expectedEpochs;
    /** FIFO: the operation's submission ordinal on its queue, the epoch it retires with. */
    long epoch;
    /** FIFO: 2 until both this operation retired and its predecessor finished (then it finished). */
    private volatile int fifoHold = 2;
    /** FIFO: the next operation of the queue, or {@link #FINISHED}. */
    private volatile Object successor;
    /** The ring slot it was loaded into (for cancellation; the slot may since carry another op). */
    volatile Execution execution;
    // Live list links, guarded by the device lock.
    QueueOp livePrev;
    QueueOp liveNext;

    QueueOp(TaskQueue queue, Kind kind, SemaphoreList waits, SemaphoreList signals) {
        this.queue = queue;
        this.kind = kind;
        this.waits = waits;
        this.signals = signals;
        this.waitCount = waits.size() + (queue.isFifo() ? 2 : 1);
    }

    /**
     * Registers a timepoint for every wait not yet reached and not elided, then drops the
     * submitter's guard. Runs on the submitting thread after the operation is on the device's
     * live list (and, on a FIFO queue, linked behind its predecessor).
     */
    void arm() {
        int n = waits.size();
        if (n > 0) {
            timepoints = new Timepoint[n];
            for (int i = 0; i < n; i++) {
                if (isElided(i)) {
                    WAIT_COUNT.getAndAdd(this, -1);
                } else if (!armWait(i)) {
                    break;
                }
            }
            if (isRetired()) {
                cancelTimepoints();
                return;
            }
        }
        release(true);
    }

    /**
     * FIFO: registers, after all, the provisionally elided waits in {@code bits} that the queue
     * could not confirm when the operation became ready (it has no other wait left, so the count
     * restarts at those waits plus a guard); the operation becomes ready again once they are
     * reached. Runs on the thread that made it ready.
     */
    void rearm(long bits) {
        elided &= ~bits;
        WAIT_COUNT.setVolatile(this, Long.bitCount(bits) + 1);
        for (long rest = bits; rest != 0; rest &= rest - 1) {
            if (!armWait(Long.numberOfTrailingZeros(rest))) {
                break;
            }
        }
        if (isRetired()) {
            cancelTimepoints();
            return;
        }
        release(false); // not the submitting thread: a barrier goes through the ready list
    }

    /** Counts wait {@code i} as reached or registers its timepoint; false if the operation retired meanwhile. */
    private boolean armWait(int i) {
        Semaphore semaphore = waits.semaphore(i);
        StatusException failed = semaphore.failure();
        if (failed != null) {
            queue.retire(this, failed, true);
            return false;
        }
        long reached;
        try {
            reached = semaphore.query();
        } catch (StatusException failedMeanwhile) {
            queue.retire(this, failedMeanwhile, true);
            return false;
        }
        if (reached >= waits.value(i)) {
            WAIT_COUNT.getAndAdd(this, -1);
            return true;
        }
        timepoints[i] = semaphore.addTimepoint(waits.value(i), this);
        VarHandle.fullFence(); // a concurrent retirement sees the timepoint or this sees it retired
        return !isRetired();
    }

    /** FIFO: records that provisionally elided wait {@code i} (of {@code n}) holds once {@code axis} passed {@code epochValue}. */
    void expect(int i, int n, long axis, long epochValue) {
        if (expectedAxes == null) {
            expectedAxes = new long[n];
            expectedEpochs = new long[n];
        }
        expectedAxes[i] = axis;
        expectedEpochs[i] = epochValue;
    }

    @Override
    public void onTimepoint(Semaphore semaphore, long value, StatusException failure) {
        if (failure != null) {
            queue.retire(this, failure, true);
            return;
        }
        release(false);
    }

    /**
     * Drops one wait; the thread reaching zero makes the operation ready.
     *
     * @param submitting whether this is the submitting thread's guard, dropped at the end of
     *     {@link #arm} (not a timepoint callback or a predecessor's retirement)
     */
    private void release(boolean submitting) {
        // getAndAdd (volatile): the thread reaching zero sees every earlier decrement's writes.
        if ((int) WAIT_COUNT.getAndAdd(this, -1) == 1 && !isRetired()) {
            queue.onReady(this, submitting);
        }
    }

    boolean isElided(int wait) {
        return wait < 64 && (elided & (1L << wait)) != 0;
    }

    /** The failure of a semaphore whose wait was elided, or null (checked once the operation is ready). */
    StatusException elidedWaitFailure() {
        for (long bits = elided; bits != 0; bits &= bits - 1) {
            StatusException failure = waits.semaphore(Long.numberOfTrailingZeros(bits)).failure();
            if (failure != null) {
                return failure;
            }
        }
        return null;
    }

    /**
     * FIFO: links {@code next} behind this operation; false if this one already finished (then
     * {@code next} has no predecessor to wait for).
     */
    boolean link(QueueOp next) {
        return SUCCESSOR.compareAndSet(this, null, next);
    }

    /** FIFO: this operation retired (call once, after its signals). */
    void retiredInOrder() {
        if ((int) FIFO_HOLD.getAndAdd(this, -1) == 1) {
            finished(this);
        }
    }

    /**
     * FIFO: {@code op}'s predecessor finished (or it has none): drops the predecessor's wait and
     * hold, and walks on while the operations behind it have retired already (iterative: a run of
     * operations failed early finishes without recursion).
     */
    static void predecessorFinished(QueueOp op) {
        for (QueueOp next = op; next != null; ) {
            next.release(false);
            if ((int) FIFO_HOLD.getAndAdd(next, -1) != 1) {
                return;
            }
            next = handOff(next);
        }
    }

    private static void finished(QueueOp op) {
        QueueOp next = handOff(op);
        if (next != null) {
            predecessorFinished(next);
        }
    }

    private static QueueOp handOff(QueueOp op) {
        return SUCCESSOR.getAndSet(op, FINISHED) instanceof QueueOp next ? next : null;
    }

    /** Marks the operation issued; false if it already retired (e.g. cancelled). */
    boolean claimIssue() {
        return STATE.compareAndSet(this, PENDING, ISSUED) || state == ISSUED;
    }

    /** Exactly-once retirement claim. */
    boolean claimRetire() {
        return (int) STATE.getAndSet(this, RETIRED) != RETIRED;
    }

    boolean isRetired() {
        return state == RETIRED;
    }

    /** Cancels the timepoints still registered (after a failure or cancellation). */
    void cancelTimepoints() {
        Timepoint[] registered = timepoints;
        for (Timepoint timepoint : registered) {
            if (timepoint != null) {
                timepoint.cancel();
            }
        }
    }

    /**
     * Releases the retained resources other than the wait and signal semaphores, once: on success
     * before the signals, so a host that observed a signal finds the executables and buffers the
     * operation used already released (as after a synchronous call).
     */
    void releaseUsed() {
        if (RELEASED.compareAndSet(this, 0, 1)) {
            release(retainedSemaphores, retained.length);
        }
    }

    /** Releases whatever of the retained resources {@link #releaseUsed} did not, once. */
    void releaseResources() {
        int was = (int) RELEASED.getAndSet(this, 2);
        if (was == 0) {
            release(retainedSemaphores, retained.length);
        }
        if (was != 2) {
            release(0, Math.min(retainedSemaphores, retained.length));
        }
    }

    private void release(int from, int to) {
        for (int i = from; i < to; i++) {
            Resource resource = retained[i];
            try {
                resource.release();
            } catch (StatusException e) {
                // A resource released too often by its owner: nothing left to do for it here.
                TaskQueue.LOG.debug("releasing {} after {} failed: {}", resource, kind, e.getMessage());
            }
        }
    }

    @Override
    public String toString() {
        return kind + " on queue " + queue.index();
    }
}
