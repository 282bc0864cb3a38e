package dev.ortho.vm.task;

import dev.ortho.base.StatusException;
import dev.ortho.task.DrainResult;
import dev.ortho.task.Executor;
import dev.ortho.task.Process;
import dev.ortho.task.WorkerContext;
import dev.ortho.vm.Context;
import dev.ortho.vm.Coroutine;
import dev.ortho.vm.Function;
import dev.ortho.vm.VmList;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Runs a VM invocation as a budget-1 process of a task {@link Executor}: a worker drains it by
 * resuming the VM until the call completes, yields or waits. On a wait (for example
 * {@code hal.fence.await} on fences not yet reached) the drain returns without work, so the
 * process sleeps and the worker moves on; the wait's semaphore timepoints reschedule the process
 * ({@link Process#schedule()}) when the fences are reached, and the next free worker resumes the
 * VM where it stopped. No thread blocks while the invocation waits, so any number of waiting
 * invocations share however many workers the executor has.
 *
 * <p>This is IREE's async invocation with {@code iree.abi.model = "coarse-fences"} functions in
 * mind: the caller appends wait/signal fences to the arguments, starts the invocation here and
 * goes on scheduling more work against its timeline.
 *
 * <p>Failures: the callee's {@link StatusException} (annotated with its backtrace) completes the
 * future exceptionally and fails the process; an executor shut down while the invocation is in
 * flight completes it with CANCELLED and, once no worker is inside the drain any more, unwinds
 * the VM stack (releasing the refs its frames hold).
 *
 * <p>Thread-safety: {@link #start} is thread-safe; the process is drained by one worker at a
 * time (budget 1, immediate list), which confines the coroutine.
 */
public final class TaskInvocation {
    private final Coroutine coroutine;
    private final CompletableFuture<Void> future = new CompletableFuture<>();
    private final Process process;
    /** Drainer-confined except for the volatile publication; true while the VM waits. */
    private volatile boolean waiting;
    /** Set by the wait's callback; the next drain resumes the VM only when it is true. */
    private volatile boolean resolved;

    private TaskInvocation(Executor executor, Coroutine coroutine) {
        this.coroutine = coroutine;
        this.process = executor.newProcess("vm " + coroutine.function().qualifiedName(), this::drain)
                .onComplete(this::completed)
                .onRelease(self -> coroutine.abandon()) // after the last drain: unwinds a cancelled call
                .build();
    }

    /**
     * Starts {@code function} of {@code context} on {@code executor} and returns at once.
     * {@code inputs} are borrowed until the returned future completes (keep them alive);
     * {@code outputs} are written before it completes normally.
     *
     * @return completed when the call returned and outputs are written, or exceptionally with
     *     the call's {@link StatusException}
     * @throws StatusException FAILED_PRECONDITION if the executor has been shut down
     */
    public static CompletableFuture<Void> start(Executor executor, Context context, Function function,
                                                VmList inputs, VmList outputs) {
        Objects.requireNonNull(executor, "executor");
        TaskInvocation invocation = new TaskInvocation(executor, Coroutine.create(context, function, inputs, outputs));
        invocation.process.schedule();
        return invocation.future;
    }

    private void drain(Process self, WorkerContext worker, DrainResult result) {
        if (waiting) {
            // volatile read: pairs with the store in onWaitResolved. A drain before the wait
            // resolved (the executor may drain a process again without a schedule) sleeps again.
            if (!resolved) {
                return;
            }
            waiting = false;
        }
        switch (coroutine.resume()) { // a StatusException fails the process; completed() reports it
            case COMPLETED -> result.complete();
            case YIELDED -> result.didWork();
            case WAITING -> {
                // No work reported: the process sleeps until the wait's timepoint reschedules
                // it. If the wait resolves before this drain returns, schedule() makes the
                // executor drain the process again instead of letting it sleep.
                resolved = false;
                waiting = true;
                coroutine.whenReady(this::onWaitResolved);
            }
        }
    }

    /** Runs on the thread that resolved the wait (a semaphore signaller): never blocks. */
    private void onWaitResolved() {
        resolved = true; // volatile store: published before schedule() makes the process runnable
        process.schedule(); // ignored once the process is terminal (cancelled)
    }

    private void completed(Process self, StatusException error) {
        if (error == null) {
            future.complete(null);
        } else {
            future.completeExceptionally(error);
        }
    }
}
