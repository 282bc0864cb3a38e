package dev.ortho.hal.cpu.internal.task;

import dev.ortho.hal.trace.HalTracing;
import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.HostCall;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.internal.command.CommandExecutor;
import dev.ortho.hal.cpu.internal.heap.HeapBuffer;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.trace.QueueOperationEvent;
import dev.ortho.task.DrainFunction;
import dev.ortho.task.DrainResult;
import dev.ortho.task.Executor;
import dev.ortho.task.Process;
import dev.ortho.task.WorkerContext;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.BitSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One queue of a {@code local-task} device: a budget-1 <em>queue process</em> (this drain
 * function) fed by a lock-free ready list, plus two {@link BlockProcessor}s (command buffers,
 * streamed operations), and the queue's causal axis and frontier.
 *
 * <p><b>Readiness.</b> An operation becomes ready when its last wait is satisfied (see
 * {@link QueueOp}); execution order is the order in which waits resolve, not submission order
 * (IREE's local-task). A <em>FIFO</em> queue ({@code queue_order=fifo}) adds one implicit wait: an
 * operation starts only after the one submitted before it on the queue finished. In exchange it
 * elides at submission every wait on a value an earlier operation of the same queue signals:
 * queue order already implies it, so no timepoint is registered and nothing is imported (seed
 * 002's "zero-cost fast path for sequential, single-queue workloads"); and, provisionally, every
 * wait on a value another FIFO queue of the device signals at an epoch an earlier wait of this
 * queue already implies, confirmed when the operation becomes ready (see {@link FifoLedger}).
 * A FIFO queue, like a CUDA stream, must not wait on a value that only a later submission to the
 * same queue signals.
 * Dispatches and large transfers go straight to the streaming processor, and command buffers
 * to the compute processor, from the thread that made them ready; barriers, allocas and
 * deallocas whose waits were all reached at submission are handled on the submitting thread
 * (see {@link #onReady}). Everything else is pushed onto the ready list and the queue process is
 * scheduled (direct wake). Its drain pops one operation per call and handles it inline:
 * barriers, host calls, alloca/dealloca (pool), small fills/copies/updates; command buffers are
 * prepared and handed to the compute processor.
 *
 * <p><b>Frontier.</b> The queue is an axis. When an operation is issued, the frontiers its waits
 * carry are imported into the queue's frontier unless the queue frontier already dominates them
 * (the wait is then elided: nothing to import). The queue's frontier is <em>knowledge</em>
 * ({@link Frontier#learn}): an incomplete (tainted) import or an overflow loses entries but never
 * taints it. When an operation retires, the queue's epoch advances and signals carry a copy of the
 * queue frontier {@linkplain Frontier#anchor anchored} at (axis, epoch), which is complete however
 * much was evicted: so taint recovers at the queue's next signal (seed 002). A queue without an
 * axis ({@link #NO_AXIS}: its allocator was exhausted) signals its copies tainted instead. The
 * frontier is guarded by a lock held only for these merges and copies (per operation, never per
 * tile); semaphores are signalled after it is released.
 */
final class TaskQueue implements DrainFunction {
    static final Logger LOG = LoggerFactory.getLogger(TaskQueue.class);
    private static final VarHandle ELIDED;
    private static final VarHandle SKIPPED;
    private static final VarHandle IMPORTED;
    private static final VarHandle UNCONFIRMED;
    private static final VarHandle DIRECT;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            ELIDED = l.findVarHandle(TaskQueue.class, "elidedWaits", long.class);
            SKIPPED = l.findVarHandle(TaskQueue.class, "skippedImports", long.class);
            IMPORTED = l.findVarHandle(TaskQueue.class, "importedWaits", long.class);
            UNCONFIRMED = l.findVarHandle(TaskQueue.class, "unconfirmedWaits", long.class);
            DIRECT = l.findVarHandle(TaskQueue.class, "directIssues", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Axes a queue frontier holds before it evicts. */
    static final int FRONTIER_CAPACITY = 16;
    /** The axis of a queue that has none (not a valid axis: domain 0xFF). */
    static final long NO_AXIS = -1L;

    private final LocalTaskDevice device;
    private final int index;
    private final long axis;
    private final long inlineThreshold;
    /** Whether the submitting thread runs the first tile of what it issues ({@code task_caller_runs}). */
    private final boolean callerRuns;
    /** Whether host threads waiting on what an operation signals run its tiles ({@code task_waiter_helps}). */
    final boolean waiterHelps;
    private final MpscQueue<QueueOp> ready = new MpscQueue<>();
    private final Process process;
    private final BlockProcessor compute;
    private final BlockProcessor streaming;
    private final Object frontierLock = new Object();
    private final Frontier frontier = new Frontier(FRONTIER_CAPACITY); // guarded by frontierLock
    private final Frontier scratch = new Frontier(FRONTIER_CAPACITY); // guarded by frontierLock
    private long epoch; // guarded by frontierLock
    /** FIFO: the device's ledger and this queue's lane in it (null on an unordered queue). */
    private final FifoLedger ledger;
    private final FifoLedger.Lane lane;
    private volatile long elidedWaits;
    private volatile long unconfirmedWaits;
    private volatile long skippedImports;
    private volatile long importedWaits;
    private volatile long directIssues;

    /** {@code ledger}: the device's FIFO ledger, or null for IREE's order (unordered). */
    TaskQueue(LocalTaskDevice device, int index, long axis, Executor executor, long inlineThreshold,
            FifoLedger ledger, boolean callerRuns, boolean waiterHelps) {
        this.device = device;
        this.waiterHelps = waiterHelps;
        this.callerRuns = callerRuns;
        this.index = index;
        this.axis = axis;
        this.inlineThreshold = inlineThreshold;
        this.ledger = ledger;
        this.lane = ledger != null ? ledger.newLane(axis) : null;
        String name = device.info().name() + " queue " + index;
        this.process = executor.newProcess(name, this).build();
        this.compute = new BlockProcessor(this, executor, name + " compute", false);
        this.streaming = new BlockProcessor(this, executor, name + " streaming", true);
        process.schedule(); // lives as long as the device; sleeps while the ready list is empty
    }

    int index() {
        return index;
    }

    /** The device's name (for trace events). */
    String deviceName() {
        return device.info().name();
    }

    long axis() {
        return axis;
    }

    /** Whether the queue runs its operations in submission order. */
    boolean isFifo() {
        return ledger != null;
    }

    /** FIFO: waits skipped (no timepoint, no import), decided at submission. Always 0 on an unordered queue. */
    long elidedWaits() {
        return elidedWaits;
    }

    /** FIFO: provisionally elided waits that could not be confirmed when their operation became ready. */
    long unconfirmedWaits() {
        return unconfirmedWaits;
    }

    /** Reached waits whose frontier the queue already dominated when their operation was issued. */
    long skippedImports() {
        return skippedImports;
    }

    /** Streamed operations that waited in the streaming ring's overflow list. */
    long streamingOverflows() {
        return streaming.overflowed();
    }

    /** Barriers, allocas, deallocas and command buffers issued by the thread that made them ready (see {@link #onReady}). */
    long directIssues() {
        return directIssues;
    }

    /** Tiles the submitting threads ran themselves (see {@link BlockProcessor#submit(QueueOp, boolean)}). */
    long callerTiles() {
        return compute.callerTiles() + streaming.callerTiles();
    }

    /** Tiles run by host threads waiting on what they signal (see {@link BlockProcessor#help}). */
    long waiterTiles() {
        return compute.waiterTiles() + streaming.waiterTiles();
    }

    /** Waits whose frontier had to be merged into the queue's. */
    long importedWaits() {
        return importedWaits;
    }

    /** A copy of the queue's frontier now. */
    Frontier frontier() {
        synchronized (frontierLock) {
            return frontier.copy();
        }
    }

    /** The executor processes of this queue (for teardown). */
    Process[] processes() {
        return new Process[] {process, compute.process(), streaming.process()};
    }

    // ---- submission and readiness -----------------------------------------------------------

    /** Registers {@code op} with the device and arms its waits; it runs once they are reached. */
    void submit(QueueOp op) {
        op.trace = HalTracing.AVAILABLE // null if off
                ? QueueOperationEvent.start(device.info().name(), index, op.kind.name()) : null;
        device.register(op);
        if (ledger != null) {
            sequence(op);
        }
        op.arm();
    }

    /**
     * FIFO: decides which of {@code op}'s waits queue order already implies and links it behind
     * the operation submitted before it ({@link FifoLedger#sequence}).
     */
    private void sequence(QueueOp op) {
        boolean linked = ledger.sequence(lane, op);
        long certain = op.elided & ~op.crossElided; // the provisional ones count once confirmed
        if (certain != 0) {
            ELIDED.getAndAdd(this, (long) Long.bitCount(certain));
        }
        if (!linked) {
            QueueOp.predecessorFinished(op); // nothing before it is unfinished
        }
    }

    /** FIFO: forgets the values {@code op} scheduled that no later operation raised, then lets its successor go. */
    private void finishInOrder(QueueOp op) {
        if (op.kind != QueueOp.Kind.HOST_CALL) {
            ledger.retired(op);
        }
        op.retiredInOrder();
    }

    /**
     * FIFO: confirms {@code op}'s provisionally elided waits now that it is ready. A wait holds if
     * its value is reached and the queue's frontier shows the signalling queue past the expected
     * epoch; if one's semaphore failed, all stay elided and the failure check retires the operation.
     * One whose value is reached but which the frontier cannot prove becomes an ordinary reached
     * wait (its frontier is imported at issue); one not reached yet is registered after all.
     *
     * @return true if {@code op} may go on; false if it was re-armed (it becomes ready again later)
     */
    private boolean confirmProvisionalElisions(QueueOp op) {
        long provisional = op.crossElided;
        op.crossElided = 0;
        long unreached = 0;
        long unproven = 0;
        boolean failed = false;
        for (long bits = provisional; bits != 0; bits &= bits - 1) {
            int i = Long.numberOfTrailingZeros(bits);
            Semaphore semaphore = op.waits.semaphore(i);
            if (semaphore.failure() != null) {
                failed = true;
                continue;
            }
            long reached;
            try {
                reached = semaphore.query();
            } catch (StatusException failedMeanwhile) {
                unreached |= 1L << i; // re-armed: arming it retires the operation with the failure
                continue;
            }
            if (reached < op.waits.value(i)) {
                unreached |= 1L << i; // e.g. its operation is still signalling its list
            } else if (!knows(op.expectedAxes[i], op.expectedEpochs[i])) {
                unproven |= 1L << i; // reached through another path than the one predicted
            }
        }
        if (failed) {
            return true; // the failure check of the elided waits retires the operation now
        }
        long rejected = unreached | unproven;
        long confirmed = provisional & ~rejected;
        if (confirmed != 0) {
            ELIDED.getAndAdd(this, (long) Long.bitCount(confirmed));
        }
        if (rejected == 0) {
            return true;
        }
        UNCONFIRMED.getAndAdd(this, (long) Long.bitCount(rejected));
        op.elided &= ~unproven;
        if (unreached == 0) {
            return true;
        }
        op.rearm(unreached);
        return false;
    }

    /** Whether the queue's frontier holds {@code axisValue} at {@code epochValue} or later. */
    private boolean knows(long axisValue, long epochValue) {
        synchronized (frontierLock) {
            return Long.compareUnsigned(frontier.epochOf(axisValue), epochValue) >= 0;
        }
    }

    /**
     * Called by the thread that satisfied {@code op}'s last wait ({@code submitting}: the
     * submitting thread itself, every wait already reached; otherwise a timepoint callback or a
     * FIFO predecessor's retirement).
     *
     * <p>Issued here, with no hop through the queue process: dispatches and large transfers
     * (to the streaming processor) and command buffers (to the compute processor; the thread
     * prepares the first region and schedules the compute process, which wakes one worker) from
     * any thread, since neither retires on success before a worker ran it; and on the submitting
     * thread also barriers, allocas and deallocas, which retire at once (signalling from the
     * submitting thread, as IREE's synchronous pool operations do). From a callback those go to
     * the ready list instead, so a chain of operations waiting on each other's signals never
     * recurses through retirements. Host calls and small transfers always run on the queue
     * process. {@link #directIssues()} counts the operations issued here. A FIFO operation with
     * provisionally elided waits confirms them first ({@link #confirmProvisionalElisions}).
     */
    void onReady(QueueOp op, boolean submitting) {
        if (op.crossElided != 0 && !confirmProvisionalElisions(op)) {
            return; // re-armed: ready again once the waits it could not confirm are reached
        }
        if (op.elided != 0 && op.elidedWaitFailure() != null) {
            requeue(op); // the queue process retires it (no recursion through a chain of failures)
            return;
        }
        boolean callerRuns = submitting && this.callerRuns;
        if (op.kind == QueueOp.Kind.DISPATCH
                || (op.kind == QueueOp.Kind.TRANSFER && op.transferBytes > inlineThreshold)) {
            stream(op, callerRuns);
            return;
        }
        if (op.kind == QueueOp.Kind.EXECUTE || (submitting && (op.kind == QueueOp.Kind.BARRIER
                || op.kind == QueueOp.Kind.ALLOCA || op.kind == QueueOp.Kind.DEALLOCA))) {
            DIRECT.getAndAdd(this, 1L);
            issue(op, callerRuns);
            return;
        }
        requeue(op);
    }

    /** Puts {@code op} on the ready list and wakes the queue process. */
    void requeue(QueueOp op) {
        ready.offer(op);
        process.schedule();
    }

    private void stream(QueueOp op, boolean callerRuns) {
        if (!op.claimIssue()) {
            return;
        }
        importWaitFrontiers(op);
        streaming.submit(op, callerRuns);
    }

    // ---- the queue process --------------------------------------------------------------------

    @Override
    public void drain(Process p, WorkerContext worker, DrainResult result) {
        QueueOp op = ready.poll();
        if (op == null) {
            if (!ready.isEmpty()) {
                result.keepActive(); // a push is half done
            }
            return;
        }
        result.didWork();
        issue(op, false);
    }

    /**
     * Issues a ready {@code op} (queue process, or the thread that made it ready; see
     * {@link #onReady}): imports its waits' frontiers and handles it by kind, retiring it on
     * failure.
     */
    private void issue(QueueOp op, boolean callerRuns) {
        if (!op.claimIssue()) {
            return; // retired meanwhile (cancelled or failed)
        }
        if (op.elided != 0) {
            StatusException failure = op.elidedWaitFailure();
            if (failure != null) {
                retire(op, failure, true); // as the elided wait would have failed it
                return;
            }
        }
        if (!op.imported) {
            op.imported = true;
            importWaitFrontiers(op);
        }
        try {
            handle(op, callerRuns);
        } catch (StatusException e) {
            retire(op, e, true);
        } catch (RuntimeException e) {
            retire(op, new StatusException(StatusCode.INTERNAL, op + " threw " + e, e), true);
        }
    }

    private void handle(QueueOp op, boolean callerRuns) {
        switch (op.kind) {
            case BARRIER -> retire(op, null, true);
            case TRANSFER -> {
                device.runTransferInline(op.command);
                retire(op, null, true);
            }
            case DISPATCH -> stream(op, callerRuns);
            case EXECUTE -> {
                checkCommitted(op);
                compute.submit(op, callerRuns);
            }
            case ALLOCA -> {
                if (op.pool.alloca(op, this)) {
                    retire(op, null, true);
                }
            }
            case DEALLOCA -> {
                DevicePool.dealloca(op.buffer, this);
                retire(op, null, true);
            }
            case HOST_CALL -> hostCall(op);
        }
    }

    /**
     * Fails {@code op} now (as resolving would) if a slot's buffer has no memory; allocation-free
     * when every slot is bound.
     */
    private static void checkCommitted(QueueOp op) {
        BitSet used = op.program.usedSlots();
        for (int slot = used.nextSetBit(0); slot >= 0; slot = used.nextSetBit(slot + 1)) {
            if (!(op.bindings.buffer(slot) instanceof HeapBuffer heap) || !heap.isCommitted() || heap.isDecommitted()) {
                CommandExecutor.checkSlotsCommitted(op.bindings, used); // throws the precise status
            }
        }
    }

    private void hostCall(QueueOp op) {
        if ((op.flags & HostCall.FLAG_NON_BLOCKING) != 0) {
            retire(op, null, true);
            try {
                op.call.call(device, op.args, SemaphoreList.empty());
            } catch (RuntimeException e) {
                LOG.warn("non-blocking host call on {} failed; dropped: {}", this, e.toString());
            }
            return;
        }
        boolean done;
        try {
            done = op.call.call(device, op.args, op.signals);
        } catch (StatusException e) {
            retire(op, e, true);
            return;
        } catch (RuntimeException e) {
            retire(op, new StatusException(StatusCode.UNKNOWN, "host call threw " + e, e), true);
            return;
        }
        retire(op, null, done); // deferred (false): the call signals its list itself
    }

    // ---- frontiers and retirement -------------------------------------------------------------

    private void importWaitFrontiers(QueueOp op) {
        SemaphoreList waits = op.waits;
        for (int i = 0; i < waits.size(); i++) {
            if (op.isElided(i)) {
                continue; // signalled by this queue: its frontier is the queue's own
            }
            Semaphore semaphore = waits.semaphore(i);
            synchronized (frontierLock) {
                boolean reached;
                try {
                    reached = semaphore.frontierAt(waits.value(i), scratch);
                } catch (StatusException failedMeanwhile) {
                    continue; // the failure retires the operation through its timepoint
                }
                if (!reached) {
                    continue;
                }
                if (frontier.dominates(scratch)) {
                    SKIPPED.getAndAdd(this, 1L);
                } else {
                    frontier.learn(scratch);
                    IMPORTED.getAndAdd(this, 1L);
                }
            }
        }
    }

    /**
     * Merges {@code death} (a pooled block's death frontier) into the queue's frontier unless it
     * already dominates it.
     *
     * @return true if the queue frontier dominated it (reuse needs nothing), false if the
     *     undominated entries had to be imported
     */
    boolean acquire(Frontier death) {
        synchronized (frontierLock) {
            if (frontier.dominates(death)) {
                return true;
            }
            frontier.learn(death);
            return false;
        }
    }

    /** Whether the queue's frontier dominates {@code other} now. */
    boolean dominates(Frontier other) {
        synchronized (frontierLock) {
            return frontier.dominates(other);
        }
    }

    /** Copies the queue's frontier into {@code out} (a death frontier at dealloca). */
    void snapshot(Frontier out) {
        synchronized (frontierLock) {
            out.copyFrom(frontier);
        }
    }

    /**
     * Retires {@code op} once: on success releases the resources it used, advances the queue's
     * epoch and (if {@code signal}) signals with the queue frontier; on failure fails the signals,
     * then releases the resources. The semaphores are released last.
     */
    void retire(QueueOp op, StatusException error, boolean signal) {
        if (!op.claimRetire()) {
            return;
        }
        if (op.trace != null) {
            QueueOperationEvent.finish(op.trace, error != null);
        }
        boolean owned = false; // whether this call releases the resources (not the closing device)
        if (error != null) {
            op.cancelTimepoints();
            Execution execution = op.execution;
            // Entered, the execution cannot be recycled meanwhile; if it already carries another
            // operation, ours finished and there is nothing to abandon.
            if (execution != null && execution.enter()) {
                try {
                    if (execution.op == op) {
                        execution.abandon(error);
                    }
                } finally {
                    execution.exit();
                }
            }
            op.signals.fail(error);
            if (ledger != null) {
                finishInOrder(op); // after the failure, which successors that elided a wait on it must see
            }
        } else {
            owned = device.unregister(op);
            if (owned) {
                op.releaseUsed(); // before the signals: see QueueOp
            }
            SemaphoreList signals = op.signals;
            Frontier carried = null;
            synchronized (frontierLock) {
                epoch = ledger != null ? Math.max(epoch, op.epoch) : epoch + 1; // FIFO: the epoch the ledger predicted
                if (axis != NO_AXIS) {
                    frontier.insertOrRaise(axis, epoch);
                }
                if (signal && !signals.isEmpty()) {
                    carried = frontier.copy();
                    if (axis != NO_AXIS) {
                        carried.anchor(axis, epoch);
                    } else {
                        carried.markTainted();
                    }
                }
            }
            if (carried != null) {
                for (int i = 0; i < signals.size(); i++) {
                    Semaphore semaphore = signals.semaphore(i);
                    try {
                        semaphore.signal(signals.value(i), carried);
                    } catch (StatusException e) {
                        semaphore.fail(e.annotate("while " + op + " signalled it"));
                    }
                }
            }
            if (ledger != null) {
                // After the signals (a successor may signal the same semaphore higher) and before
                // the semaphores are released: the shortest wait for the next operation.
                finishInOrder(op);
            }
        }
        if (error != null) {
            owned = device.unregister(op);
        }
        if (owned) {
            op.releaseResources();
        }
    }

    @Override
    public String toString() {
        return device.info().name() + " queue " + index;
    }
}
