package dev.ortho.hal.cpu.internal.task;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.internal.command.BlockProgram;
import dev.ortho.hal.spi.TimelineSemaphore;
import dev.ortho.task.DrainFunction;
import dev.ortho.task.DrainResult;
import dev.ortho.task.Executor;
import dev.ortho.task.Process;
import dev.ortho.task.WorkerContext;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A queue's compute process: one long-lived, multi-worker executor process (built with a
 * compute slot) that runs {@link Execution}s one after another in the order they were handed
 * over. Each queue has two: one for command buffer submissions and one, the <em>streaming</em>
 * process, for fills, copies and dispatches queued without a command buffer.
 *
 * <p><b>Ring.</b> The executions are the {@value #RING_SIZE} preallocated slots of a bounded
 * ring (a sequence-numbered multi-producer ring): a producer claims the slot at the tail with
 * one CAS when that slot's sequence says it is free, {@link Execution#load loads} the operation
 * into it and publishes it with a release store of the sequence. Nothing is allocated per
 * operation. The installer takes slots in ring order; a slot becomes free again only when its
 * execution is done and no thread is inside it (see {@link Execution}).
 *
 * <p><b>Overflow.</b> When the ring is full the operation is appended to an intrusive overflow
 * list instead (no allocation, never blocks the producer, which may be a semaphore callback on
 * a worker). While the overflow list is not empty producers append to it too, so operations
 * keep their order; every freed slot moves overflowed operations into the ring. Nothing is
 * dropped and nobody waits for a slot.
 *
 * <p>Workers entering {@link #drain} claim tiles of the current execution's current region; the
 * worker that retires the last tile finishes the execution (the queue operation retires: its
 * semaphores are signalled) and installs the next one. With nothing installed the process
 * reports no work and sleeps until {@link #submit} schedules it again. The wake budget follows
 * the current region's tile count, capped at the worker count.
 *
 * <p>Installing (and moving overflow into the ring) is guarded by a claim flag so that exactly
 * one thread at a time does it; every producer and every slot release tries to install, and the
 * claim holder re-checks after releasing the claim, so nothing is stranded.
 */
final class BlockProcessor implements DrainFunction, TimelineSemaphore.WaitHelper {
    /** Slots of the ring (a power of two). */
    static final int RING_SIZE = 32;
    private static final int MASK = RING_SIZE - 1;
    private static final VarHandle INSTALL_CLAIM;
    private static final VarHandle TAIL;
    private static final VarHandle WAITING;
    private static final VarHandle CALLER_CLAIM;
    private static final VarHandle CALLER_TILES;
    private static final VarHandle WAITER_TILES;
    private static final VarHandle SEQUENCE = MethodHandles.arrayElementVarHandle(long[].class);

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            INSTALL_CLAIM = l.findVarHandle(BlockProcessor.class, "installClaim", int.class);
            TAIL = l.findVarHandle(BlockProcessor.class, "tail", long.class);
            WAITING = l.findVarHandle(BlockProcessor.class, "waiting", long.class);
            CALLER_CLAIM = l.findVarHandle(BlockProcessor.class, "callerClaim", int.class);
            CALLER_TILES = l.findVarHandle(BlockProcessor.class, "callerTiles", long.class);
            WAITER_TILES = l.findVarHandle(BlockProcessor.class, "waiterTiles", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final TaskQueue queue;
    private final boolean streaming;
    private final Execution[] ring = new Execution[RING_SIZE];
    /**
     * Per slot: {@code p} when free for the producer at position {@code p}, {@code p + 1} when
     * loaded at {@code p} and published, {@code p + RING_SIZE} once freed after that.
     */
    private final long[] sequence = new long[RING_SIZE];
    private final MpscQueue<QueueOp> overflow = new MpscQueue<>();
    private final Process process;
    /** Next position a producer claims. */
    private volatile long tail;
    /** Next position to install; confined to the install-claim holder. */
    private volatile long head;
    /**
     * Operations offered to the overflow list and not yet placed in the ring: incremented before
     * the offer, decremented after the placement, so a producer that reads 0 knows every earlier
     * operation already holds an earlier ring position.
     */
    private volatile long waiting;
    /** An overflowed operation taken off the list but not yet placed; install-claim holder only. */
    private QueueOp stalled;
    private volatile Execution current;
    private volatile int installClaim;
    private volatile long overflowed; // written by the install-claim holder only
    /**
     * The tile state of a host thread running tiles (a submitting thread, {@code task_caller_runs},
     * or a waiting one, {@link #help}): processor id {@code worker_count}, one past the workers', so
     * a kernel's per-processor state and the trace's per-worker tracks never see two threads under
     * one id. Used under {@link #callerClaim}.
     */
    private final WorkerSlot callerSlot;
    /** 1 while a submitting or waiting thread runs tiles with {@link #callerSlot}. */
    private volatile int callerClaim;
    /** Tiles run by submitting threads (diagnostics, tests); written under the caller claim. */
    private volatile long callerTiles;
    /** Tiles run by waiting threads (diagnostics, tests); written under the caller claim. */
    private volatile long waiterTiles;

    /**
     * @param streaming whether operations carry one command ({@code op.command}) rather than a
     *     program and binding table ({@code op.program}, {@code op.bindings})
     */
    BlockProcessor(TaskQueue queue, Executor executor, String name, boolean streaming) {
        this.queue = queue;
        this.streaming = streaming;
        int workers = executor.workerCount();
        this.callerSlot = new WorkerSlot(workers);
        for (int i = 0; i < RING_SIZE; i++) {
            ring[i] = new Execution(this, workers);
            sequence[i] = i;
        }
        VarHandle.releaseFence(); // the ring is published with the process below
        this.process = executor.newProcess(name, this).computeSlot().workerState(WorkerSlot::new).build();
    }

    /**
     * Hands {@code op} (issued) over; it runs after the ones before it. Never blocks: with the
     * ring full it waits in the overflow list.
     */
    void submit(QueueOp op) {
        submit(op, false);
    }

    /**
     * As {@link #submit(QueueOp)}. With {@code callerRuns} (the submitting thread made {@code op}
     * ready itself) and {@code op}'s execution installed at once (nothing before it in this
     * processor), the calling thread runs the first tile itself before it returns, instead of
     * waiting for a parked worker to be woken for it (IREE's donated caller threads): the
     * workers are woken only if more is left (before that tile runs), and if the tile was all
     * there was, the operation retires on this thread. One tile at most, so the call returns
     * after one workgroup however large the dispatch.
     */
    void submit(QueueOp op, boolean callerRuns) {
        if (queue.waiterHelps) {
            offerHelp(op.signals);
        }
        boolean placed = waiting == 0 && place(op);
        if (!placed) {
            WAITING.getAndAdd(this, 1L); // volatile: before the offer, see the field's contract
            overflow.offer(op);
        }
        tryInstall();
        if (callerRuns && placed && runFirstTileOnCaller(op)) {
            return; // it scheduled the process if anything is left for the workers
        }
        process.schedule();
    }

    /**
     * Runs the first tile of {@code op} on the calling thread if its execution is the current one
     * and no other submitting thread holds the caller slot.
     *
     * @return false if it ran nothing and the caller must schedule the process as usual; true if
     *     it took care of that (scheduled the process for the rest, or retired the operation)
     */
    private boolean runFirstTileOnCaller(QueueOp op) {
        Execution e = current;
        if ((e == null || e.op != op) && installClaim != 0) {
            // Our tryInstall found the claim held (typically a worker that just finished the
            // execution before ours and re-checks the ring): it installs ours within a few
            // instructions. The op read is a hint; it is checked again once entered.
            for (int spin = 0; spin < 256 && installClaim != 0; spin++) {
                Thread.onSpinWait();
            }
            e = current;
        }
        if (e == null || !CALLER_CLAIM.compareAndSet(this, 0, 1)) {
            return false;
        }
        try {
            if (!e.enter()) {
                return false;
            }
            try {
                if (e.op != op) {
                    return false; // entered: e cannot be reloaded meanwhile, so op is stable
                }
                int outcome = e.runFirstTile(callerSlot, this);
                if (outcome == Execution.IDLE) {
                    return false; // nothing claimed (a worker got there first): schedule as usual
                }
                CALLER_TILES.setOpaque(this, callerTiles + 1); // single writer: the claim holder
                if (outcome == Execution.FINISHED) {
                    finishOnCaller(e, op);
                }
                return true;
            } finally {
                e.exit();
            }
        } finally {
            CALLER_CLAIM.setVolatile(this, 0);
        }
    }

    /** Makes this processor the wait helper of {@code signals}' host semaphores (before the op can retire). */
    private void offerHelp(SemaphoreList signals) {
        for (int i = 0; i < signals.size(); i++) {
            if (signals.semaphore(i) instanceof TimelineSemaphore timeline) {
                timeline.setWaitHelper(this);
            }
        }
    }

    /**
     * A host thread waits for {@code semaphore} to reach {@code target} ({@code task_waiter_helps}):
     * while the current execution's operation signals that value (or a later one) and has tiles
     * left, the waiting thread claims and runs them one at a time with the caller slot (processor
     * id {@code worker_count}; the workers' claiming protocol), checking between tiles whether the
     * value was reached, the semaphore failed or the deadline passed (one tile may run past it). If
     * its tile retires the operation, the operation retires here (its semaphores are signalled on
     * this thread, which then returns without a wake-up); a kernel failure is recorded in the
     * execution and fails the operation's semaphores as on a worker. Returns at once if another
     * submitting or waiting thread holds the caller slot, or the current operation signals
     * something else (an earlier operation of the queue, another semaphore).
     */
    @Override
    public void help(TimelineSemaphore semaphore, long target, long deadlineNanos) {
        Execution e = current;
        if (e == null || !queue.waiterHelps || !CALLER_CLAIM.compareAndSet(this, 0, 1)) {
            return;
        }
        try {
            while (e != null && e.enter()) {
                try {
                    if (!signals(e.op, semaphore, target)) {
                        return;
                    }
                    long before = callerSlot.tilesRun;
                    int outcome = e.help(callerSlot, this, semaphore, target, deadlineNanos);
                    WAITER_TILES.setOpaque(this, waiterTiles + (callerSlot.tilesRun - before)); // claim holder only
                    if (outcome != Execution.FINISHED) {
                        return; // nothing claimed, stopped (reached, failed, deadline) or a worker took the rest
                    }
                    finishOnCaller(e, e.op);
                } finally {
                    e.exit();
                }
                if (Execution.stopHelping(semaphore, target, deadlineNanos)) {
                    return;
                }
                e = current; // the next operation may signal the value (a chain on one queue)
            }
        } finally {
            CALLER_CLAIM.setVolatile(this, 0);
        }
    }

    /**
     * A submitting or waiting thread's tile retired {@code e} (entered, carrying {@code op}): finishes
     * it, installs the next one and retires {@code op} on this thread; schedules the workers if
     * the next execution was installed meanwhile.
     */
    private void finishOnCaller(Execution e, QueueOp op) {
        StatusException error = e.error();
        e.markDone();
        tryInstall();
        queue.retire(op, error, true);
        Execution next = current;
        if (next != null && !next.isDoneOrFree()) {
            process.schedule(); // installed behind ours meanwhile: the workers take it
        }
    }

    /** Whether {@code op} signals {@code semaphore} at {@code target} or later. */
    private static boolean signals(QueueOp op, Semaphore semaphore, long target) {
        SemaphoreList signals = op.signals;
        for (int i = 0; i < signals.size(); i++) {
            if (signals.semaphore(i) == semaphore && signals.value(i) >= target) {
                return true;
            }
        }
        return false;
    }

    /** Tiles run by waiting threads ({@link #help}). */
    long waiterTiles() {
        return waiterTiles;
    }

    /** Tiles run by submitting threads ({@link #submit(QueueOp, boolean)}). */
    long callerTiles() {
        return callerTiles;
    }

    /** Schedules the process (a caller that ran a tile leaves the rest to the workers). */
    void scheduleWorkers() {
        process.schedule();
    }

    /**
     * Loads {@code op} into the free slot at the tail, if any, and publishes it.
     *
     * @return false if the ring is full
     */
    private boolean place(QueueOp op) {
        long pos = tail;
        while (true) {
            int index = (int) (pos & MASK);
            long seq = (long) SEQUENCE.getAcquire(sequence, index); // acquire: pairs with free's release
            if (seq == pos) {
                if (TAIL.compareAndSet(this, pos, pos + 1)) {
                    break;
                }
                pos = tail;
            } else if (seq < pos) {
                return false; // the slot of this lap is still in use: full
            } else {
                pos = tail; // another producer took it
            }
        }
        Execution e = ring[(int) (pos & MASK)];
        e.position = pos;
        StatusException failure;
        boolean runnable;
        try {
            runnable = streaming ? e.load(op, null, op.command, null) : e.load(op, op.program, null, op.bindings);
            failure = runnable ? null : e.error();
        } catch (RuntimeException bad) {
            e.runnable = false;
            runnable = false;
            failure = bad instanceof StatusException s ? s
                    : new StatusException(StatusCode.INTERNAL, "preparing " + op + " threw " + bad, bad);
        }
        if (runnable) {
            op.execution = e;
        }
        // release: publishes the loaded execution to the installer's acquire.
        SEQUENCE.setRelease(sequence, (int) (pos & MASK), pos + 1);
        if (!runnable) {
            queue.retire(op, failure, true); // nothing to run; the installer frees the slot
        }
        return true;
    }

    /** Called by the last thread leaving a done execution (or the installer for an empty one). */
    void free(Execution e) {
        // release: orders everything done with e before the next producer's load.
        SEQUENCE.setRelease(sequence, (int) (e.position & MASK), e.position + RING_SIZE);
        if (waiting != 0) {
            tryInstall();
            process.schedule();
        }
    }

    /** Sets the wake budget (region transitions). */
    void setBudget(int budget) {
        process.setWakeBudget(budget);
    }

    /** The executor process, for teardown. */
    Process process() {
        return process;
    }

    @Override
    public void drain(Process p, WorkerContext worker, DrainResult result) {
        Execution e = current;
        if (e == null || !e.enter()) {
            tryInstall();
            e = current;
            if (e == null || !e.enter()) {
                return; // nothing to run: sleep until submit schedules us
            }
        }
        try {
            drainEntered(p, worker, result, e);
        } finally {
            e.exit();
        }
    }

    private void drainEntered(Process p, WorkerContext worker, DrainResult result, Execution e) {
        WorkerSlot slot = p.workerState(worker);
        int outcome;
        try {
            outcome = e.drain(slot, this);
        } catch (RuntimeException bug) {
            // Kernel failures are caught per tile; anything here is a defect. Fail the submission
            // instead of letting the exception end this long-lived process (which would strand
            // every later submission of the queue).
            TaskQueue.LOG.error("block processor of {} failed; failing {}", queue, e.op, bug);
            e.abandon(new StatusException(StatusCode.INTERNAL, "block processor failed: " + bug, bug));
            queue.retire(e.op, e.error(), true);
            return;
        }
        if (outcome == Execution.FINISHED) {
            QueueOp op = e.op;
            StatusException error = e.error();
            e.markDone();
            tryInstall(); // the next execution starts while this one's semaphores are signalled
            queue.retire(op, error, true);
        }
        if (outcome != Execution.IDLE) {
            result.didWork();
        }
    }

    private boolean overflowPending() {
        return waiting != 0;
    }

    /** Whether the slot at the tail is free (an overflowed operation could be placed). */
    private boolean tailFree() {
        long pos = tail;
        return (long) SEQUENCE.getAcquire(sequence, (int) (pos & MASK)) == pos;
    }

    /** Whether the slot at the head is published and waiting to be installed. */
    private boolean headReady() {
        long pos = head; // read by non-holders only as a hint; the holder re-checks under the claim
        return (long) SEQUENCE.getAcquire(sequence, (int) (pos & MASK)) == pos + 1;
    }

    private void tryInstall() {
        while (true) {
            if (!INSTALL_CLAIM.compareAndSet(this, 0, 1)) {
                return; // the holder re-checks after releasing the claim
            }
            Execution installed = null;
            boolean idle = false;
            try {
                moveOverflow();
                Execution c = current;
                if (c == null || c.isDoneOrFree()) {
                    installed = installNext();
                    idle = installed == null;
                }
            } finally {
                INSTALL_CLAIM.setVolatile(this, 0); // volatile: Dekker with the producers' publication
            }
            if (installed != null) {
                process.setWakeBudget(installed.initialBudget());
            } else if (idle) {
                process.setWakeBudget(1);
            }
            Execution now = current;
            boolean installable = (now == null || now.isDoneOrFree()) && headReady();
            if (installable || (overflowPending() && tailFree())) {
                Thread.onSpinWait(); // published meanwhile, or a peer holds the claim
                continue;
            }
            return;
        }
    }

    /** Claim holder: places overflowed operations while slots are free. */
    private void moveOverflow() {
        while (true) {
            QueueOp op = stalled;
            if (op == null) {
                op = overflow.poll();
                if (op == null) {
                    return;
                }
            }
            if (!place(op)) {
                stalled = op;
                return;
            }
            stalled = null;
            overflowed++;
            WAITING.getAndAdd(this, -1L); // volatile: after the placement published the slot
        }
    }

    /** Claim holder: installs the first published runnable slot; frees empty ones on the way. */
    private Execution installNext() {
        while (true) {
            int index = (int) (head & MASK);
            // acquire: pairs with the producer's release publication.
            if ((long) SEQUENCE.getAcquire(sequence, index) != head + 1) {
                return null;
            }
            Execution e = ring[index];
            head++;
            if (!e.runnable) {
                e.discard();
                continue;
            }
            e.installed();
            current = e; // volatile: publishes the execution to drainers
            return e;
        }
    }

    /** Operations that went through the overflow list (claim holder's count; diagnostics). */
    long overflowed() {
        return overflowed;
    }
}
