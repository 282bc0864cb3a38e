package dev.ortho.vm;

import dev.ortho.base.Deadline;
import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.internal.WaitFrames;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One invocation as a resumable coroutine, for schedulers that drive VM execution themselves
 * (seed 000, "Coroutine process: VM execution"): {@link #resume()} runs the call until it
 * completes, yields or waits; a waiting coroutine asks to be woken with {@link #whenReady} and is
 * resumed by whoever the scheduler picks. No thread ever blocks on a wait: this class holds no
 * thread and starts none for fence or semaphore waits.
 *
 * <p>Marshalling and failure reporting are those of {@link Invocation}: inputs are read when the
 * coroutine first runs (refs borrowed, so the caller keeps {@code inputs} alive until the
 * coroutine ends); outputs are written when it completes. A failure unwinds the stack (releasing
 * every ref still held in frames) and is thrown from {@link #resume()} annotated with the
 * backtrace.
 *
 * <p>Thread-safety: not thread-safe; exactly one thread may be inside {@link #resume()} at a
 * time, and the scheduler must publish the coroutine between the threads that resume it (any
 * executor hand-off does). {@link #whenReady} callbacks arrive on the thread that resolves the
 * wait (a semaphore signaller) and must only schedule the coroutine, never resume it inline.
 */
public final class Coroutine {
    /** What {@link #resume()} reports. */
    public enum Step {
        /** The call yielded without a wait (IREE's {@code vm.yield}); resume it again soon. */
        YIELDED,
        /** The call waits on a WAIT frame; arm {@link #whenReady} and resume it when called. */
        WAITING,
        /** The call finished and its outputs are written. */
        COMPLETED
    }

    private final Stack stack;
    private final Function function;
    private final VmList inputs;
    private final VmList outputs;
    private Frame base;
    private Call call;
    private boolean done;

    private Coroutine(Context context, Function function, VmList inputs, VmList outputs) {
        this.stack = new Stack(Objects.requireNonNull(context, "context"));
        this.function = Objects.requireNonNull(function, "function");
        this.inputs = inputs;
        this.outputs = outputs;
    }

    /**
     * Creates a coroutine calling {@code function} of {@code context}; nothing runs until the
     * first {@link #resume()}. {@code inputs}/{@code outputs} may be null for functions without
     * arguments/results.
     */
    public static Coroutine create(Context context, Function function, VmList inputs, VmList outputs) {
        return new Coroutine(context, function, inputs, outputs);
    }

    /** The function being called. */
    public Function function() {
        return function;
    }

    /** True once {@link #resume()} has returned {@link Step#COMPLETED} or thrown. */
    public boolean isDone() {
        return done;
    }

    /**
     * Runs the call from where it stopped until it completes, yields or waits.
     *
     * @throws StatusException FAILED_PRECONDITION if the coroutine already finished; otherwise the
     *     callee's failure, the marshalling errors of {@link Invocation#invoke}, or
     *     DEADLINE_EXCEEDED when a wait's deadline passed; the coroutine is then finished
     */
    public Step resume() {
        if (done) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                    "coroutine for " + function.qualifiedName() + " already finished");
        }
        try {
            CallOutcome outcome;
            if (base == null) {
                base = stack.enter(FrameType.EXTERNAL, null, 0, 0, null);
                call = base.outgoing().prepare(function);
                Invocation.marshalInputs(function, inputs, call.arguments());
                outcome = function.module().beginCall(stack, call);
            } else {
                Frame top = stack.top();
                outcome = top.function().module().resumeCall(stack, top);
            }
            while (true) {
                Frame top = stack.top();
                if (outcome == CallOutcome.COMPLETED && top == base) {
                    done = true;
                    Invocation.marshalOutputs(function, call.results(), outputs);
                    stack.leave(base);
                    return Step.COMPLETED;
                }
                if (top == null || top == base) {
                    throw new StatusException(StatusCode.FAILED_PRECONDITION, "unbalanced stack after yield");
                }
                if (outcome == CallOutcome.DEFERRED) {
                    return top.type() == FrameType.WAIT ? Step.WAITING : Step.YIELDED;
                }
                outcome = top.function().module().resumeCall(stack, top);
            }
        } catch (StatusException e) {
            done = true;
            throw Invocation.fail(stack, e);
        } catch (RuntimeException | Error e) {
            done = true;
            stack.unwind();
            throw e;
        }
    }

    /**
     * Abandons a coroutine that has not finished (its scheduler was shut down or cancelled it):
     * unwinds the stack, releasing every ref still held in its frames, and marks it finished.
     * No-op if it already finished. Must not race {@link #resume()}; a wait armed with
     * {@link #whenReady} may still call its callback later, which must then do nothing.
     */
    public void abandon() {
        if (!done) {
            done = true;
            stack.unwind();
        }
    }

    /**
     * After {@link #resume()} returned {@link Step#WAITING}: calls {@code onReady} exactly once
     * when the wait resolves (every source ready for ALL, the first for ANY, the first failure,
     * or the deadline), after recording the outcome the resumed call will see. The call may
     * happen inline if the sources are already resolved. Sources report readiness through their
     * own callbacks (semaphore timepoints), so no thread waits; only a finite deadline or an
     * UNTIL wait uses a timer ({@link CompletableFuture#delayedExecutor}).
     *
     * @throws StatusException FAILED_PRECONDITION if the coroutine is not waiting
     */
    public void whenReady(Runnable onReady) {
        Objects.requireNonNull(onReady, "onReady");
        Frame top = done ? null : stack.top();
        if (top == null || top.type() != FrameType.WAIT) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                    "coroutine for " + function.qualifiedName() + " is not waiting");
        }
        Deadline deadline = top.deadline();
        if (top.waitType() == WaitType.UNTIL) {
            long nanos = deadline.remainingNanos();
            if (nanos <= 0) {
                onReady.run();
            } else {
                CompletableFuture.delayedExecutor(nanos, TimeUnit.NANOSECONDS).execute(onReady);
            }
            return;
        }
        WaitFrames.Waiter[] self = new WaitFrames.Waiter[1];
        WaitFrames.Waiter waiter = new WaitFrames.Waiter(top, () -> {
            top.setWaitStatus(self[0].status());
            onReady.run();
        });
        self[0] = waiter;
        if (!deadline.isInfinite()) {
            CompletableFuture.delayedExecutor(Math.max(0, deadline.remainingNanos()), TimeUnit.NANOSECONDS)
                    .execute(() -> waiter.finish(
                            new StatusException(StatusCode.DEADLINE_EXCEEDED, "wait deadline exceeded")));
        }
        waiter.arm();
    }
}
