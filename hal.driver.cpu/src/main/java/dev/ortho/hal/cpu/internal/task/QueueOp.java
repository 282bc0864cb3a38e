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
 * submitting thread while it registers timepoints. Each satisfied timepoint decrements it; the
 * thread that brings it to zero makes the operation ready ({@link TaskQueue#onReady}) — direct
 * wake, no scanning. A failed wait retires the operation at once with that failure.
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

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            WAIT_COUNT = l.findVarHandle(QueueOp.class, "waitCount", int.class);
            STATE = l.findVarHandle(QueueOp.class, "state", int.class);
            RELEASED = l.findVarHandle(QueueOp.class, "released", int.class);
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
    }

    /**
     * Registers a timepoint for every wait not yet reached, then drops the submitter's guard.
     * Runs on the submitting thread after the operation is on the device's live list.
     */
    void arm() {
        int n = waits.size();
        WAIT_COUNT.setVolatile(this, n + 1);
        if (n > 0) {
            Timepoint[] registered = new Timepoint[n];
            timepoints = registered;
            for (int i = 0; i < n; i++) {
                Semaphore semaphore = waits.semaphore(i);
                StatusException failed = semaphore.failure();
                if (failed != null) {
                    queue.retire(this, failed, true);
                    break;
                }
                long reached;
                try {
                    reached = semaphore.query();
                } catch (StatusException failedMeanwhile) {
                    queue.retire(this, failedMeanwhile, true);
                    break;
                }
                if (reached >= waits.value(i)) {
                    WAIT_COUNT.getAndAdd(this, -1);
                    continue;
                }
                registered[i] = semaphore.addTimepoint(waits.value(i), this);
                if (isRetired()) {
                    break;
                }
            }
            if (isRetired()) {
                cancelTimepoints();
                return;
            }
        }
        release();
    }

    @Override
    public void onTimepoint(Semaphore semaphore, long value, StatusException failure) {
        if (failure != null) {
            queue.retire(this, failure, true);
            return;
        }
        release();
    }

    private void release() {
        // getAndAdd (volatile): the thread reaching zero sees every earlier decrement's writes.
        if ((int) WAIT_COUNT.getAndAdd(this, -1) == 1 && !isRetired()) {
            queue.onReady(this);
        }
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
