package dev.ortho.hal.cpu.internal.task;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
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
 * <p>Workers entering {@link #drain} claim tiles of the current execution's current region; the
 * worker that retires the last tile finishes the execution (the queue operation retires: its
 * semaphores are signalled) and installs the next pending one. With nothing pending the process
 * reports no work and sleeps until {@link #submit} schedules it again. The wake budget follows
 * the current region's tile count, capped at the worker count.
 *
 * <p>Installing is guarded by a claim flag so that exactly one thread at a time consumes the
 * pending list (an {@link MpscQueue}); every producer tries to install after it offers, and the
 * claim holder re-checks after releasing the claim, so no execution is stranded.
 */
final class BlockProcessor implements DrainFunction {
    private static final VarHandle INSTALL_CLAIM;

    static {
        try {
            INSTALL_CLAIM = MethodHandles.lookup().findVarHandle(BlockProcessor.class, "installClaim", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final TaskQueue queue;
    private final MpscQueue<Execution> pending = new MpscQueue<>();
    private final Process process;
    private volatile Execution current;
    private volatile int installClaim;

    BlockProcessor(TaskQueue queue, Executor executor, String name) {
        this.queue = queue;
        this.process = executor.newProcess(name, this).computeSlot().workerState(WorkerSlot::new).build();
    }

    /** Hands {@code execution} (already started) over; it runs after the ones before it. */
    void submit(Execution execution) {
        pending.offer(execution);
        tryInstall();
        process.schedule();
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
        if (e == null || e.isFinished()) {
            tryInstall();
            e = current;
            if (e == null || e.isFinished()) {
                return; // nothing to run: sleep until submit schedules us
            }
        }
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
            finish(e);
        }
        if (outcome != Execution.IDLE) {
            result.didWork();
        }
    }

    /** Called by the completer of {@code e}'s last region. */
    private void finish(Execution e) {
        tryInstall(); // the next execution starts while this one's semaphores are signalled
        queue.retireExecution(e);
    }

    private void tryInstall() {
        while (true) {
            if (!INSTALL_CLAIM.compareAndSet(this, 0, 1)) {
                return; // the holder re-checks after releasing the claim
            }
            Execution installed = null;
            Execution c = current;
            if (c == null || c.isFinished()) {
                Execution next = pending.poll();
                current = next; // volatile: publishes the execution to drainers
                installed = next;
            }
            INSTALL_CLAIM.setVolatile(this, 0); // volatile: Dekker with the producers' offer
            if (installed != null) {
                process.setWakeBudget(installed.initialBudget());
            } else if (c != null && c.isFinished() && current == null) {
                process.setWakeBudget(1);
            }
            Execution now = current;
            if ((now == null || now.isFinished()) && !pending.isEmpty()) {
                Thread.onSpinWait(); // a push is half done or a peer holds the claim
                continue;
            }
            return;
        }
    }
}
