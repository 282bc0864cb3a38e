package dev.ortho.vm;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.internal.WaitFrames;
import dev.ortho.vm.trace.VmTracing;
import dev.ortho.vm.trace.InvocationEvent;
import dev.ortho.vm.trace.WaitEvent;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Calls a function from the host (IREE's {@code iree_vm_invoke} family): marshals inputs from a
 * {@link VmList}, runs the call on a {@link Stack} (the context's spare one when no other
 * invocation holds it, else a fresh one), resumes it whenever it yields, and marshals results
 * back into a list.
 *
 * <p>Marshalling follows IREE: the input list must have exactly one element per argument of the
 * (non-variadic) calling convention; primitives are read with the list's value conversions
 * ({@link VmList#getValueBits}), refs are passed borrowed. The output list is cleared, resized to
 * the result count and filled; result refs are moved into it.
 *
 * <p>Failures are thrown (or complete the future exceptionally) as the callee's
 * {@link StatusException}, annotated with the stack backtrace at the point of failure
 * ({@code [depth] type module.function:pc -}); the stack is then unwound, releasing every ref
 * still held in frames.
 *
 * <p>Schedulers that resume invocations themselves (the task executor's coroutine processes) use
 * {@link Coroutine}.
 *
 * <p>Thread-safety: each invocation has its own stack; any number may run concurrently on one
 * context (module states permitting).
 */
public final class Invocation {
    private Invocation() {
    }

    /**
     * Invokes {@code function} synchronously, waiting in the calling thread whenever it yields on
     * a wait (until a deadline, or for wait sources). {@code inputs}/{@code outputs} may be null
     * for functions without arguments/results.
     *
     * @throws StatusException INVALID_ARGUMENT for input/output mismatches or variadic functions,
     *     DEADLINE_EXCEEDED if a wait times out, or the callee's failure
     */
    public static void invoke(Context context, Function function, VmList inputs, VmList outputs) {
        // The context keeps one spare stack: in steady state a host call reuses its frames and
        // call buffers and allocates nothing. Concurrent invocations find the slot empty and
        // build their own stack; a stack goes back only when it is empty again (success).
        Stack stack = context.spareStack.take();
        if (stack == null) {
            stack = new Stack(context);
        }
        Frame base = stack.enter(FrameType.EXTERNAL, null, 0, 0, null);
        Call call = base.outgoing().prepare(function);
        InvocationEvent event = VmTracing.AVAILABLE // null if off
                ? InvocationEvent.start(function.module().name(), function.name()) : null;
        try {
            marshalInputs(function, inputs, call.arguments());
            drive(stack, base, function.module().beginCall(stack, call));
            marshalOutputs(function, call.results(), outputs);
            if (call.arguments().refCount() > 0) {
                call.arguments().reset(0, 0);  // drop the borrowed input refs: the stack outlives the call
            }
            stack.leave(base);
            if (event != null) {
                InvocationEvent.finish(event, false);
            }
        } catch (StatusException e) {
            if (event != null) {
                InvocationEvent.finish(event, true);
            }
            throw fail(stack, e);
        }
        context.spareStack.offer(stack);
    }

    /**
     * Invokes {@code function} asynchronously. The call starts on {@code executor}; a plain yield
     * is rescheduled on it, a wait resumes on it when the wait sources report readiness (or its
     * deadline passes). Never blocks a thread on a wait.
     *
     * @return a future completed when outputs are written, or exceptionally with the
     *     {@link StatusException}
     */
    public static CompletableFuture<Void> invokeAsync(Context context, Function function, VmList inputs,
                                                      VmList outputs, Executor executor) {
        AsyncInvocation invocation = new AsyncInvocation(context, function, inputs, outputs,
                Objects.requireNonNull(executor, "executor"));
        executor.execute(invocation);
        return invocation.future;
    }

    /** Runs {@code call} to completion on {@code stack} (used for __init/__deinit/__notify). */
    static void runToCompletion(Stack stack, Call call) {
        Frame base = stack.enter(FrameType.EXTERNAL, null, 0, 0, null);
        try {
            drive(stack, base, call.function().module().beginCall(stack, call));
            call.results().releaseRefs();
            stack.leave(base);
        } catch (StatusException e) {
            throw fail(stack, e);
        }
    }

    static StatusException fail(Stack stack, StatusException e) {
        if (stack.depth() > 0) {
            e.annotate(stack.formatBacktrace());
        }
        stack.unwind();
        return e;
    }

    /** Resumes frames until {@code base} is on top again, waiting synchronously. */
    static void drive(Stack stack, Frame base, CallOutcome outcome) {
        while (true) {
            Frame top = stack.top();
            if (outcome == CallOutcome.COMPLETED && top == base) {
                return;
            }
            if (top == null || top == base) {
                throw new StatusException(StatusCode.FAILED_PRECONDITION, "unbalanced stack after yield");
            }
            if (outcome == CallOutcome.DEFERRED && top.type() == FrameType.WAIT) {
                WaitEvent event = VmTracing.AVAILABLE // null if off
                        ? WaitEvent.start(top.function(), top.waitType(), top.waitSourceCount()) : null;
                StatusException status = WaitFrames.waitSync(top);
                if (event != null) {
                    WaitEvent.finish(event, status != null);
                }
                top.setWaitStatus(status);
            }
            outcome = top.function().module().resumeCall(stack, top);
        }
    }

    static void marshalInputs(Function function, VmList inputs, CallBuffer args) {
        CallingConvention.Fragment fragment = function.cconv().arguments();
        if (fragment.isVariadic()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "function " + function.qualifiedName()
                    + " has a variadic calling convention " + function.cconv() + " and cannot be invoked with a list");
        }
        int expected = fragment.valueCount();
        if (inputs == null) {
            if (expected > 0) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "no input provided to a function that has inputs");
            }
            return;
        }
        if (expected != inputs.size()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "input list and function mismatch; expected "
                    + expected + " arguments but passed " + inputs.size());
        }
        String types = fragment.types();
        int p = 0;
        int r = 0;
        for (int i = 0; i < types.length(); i++) {
            switch (types.charAt(i)) {
                case 'i' -> args.setBits(p++, inputs.getValueBits(i, ValueType.I32));
                case 'I' -> args.setBits(p++, inputs.getValueBits(i, ValueType.I64));
                case 'f' -> args.setBits(p++, inputs.getValueBits(i, ValueType.F32));
                case 'F' -> args.setBits(p++, inputs.getValueBits(i, ValueType.F64));
                default -> args.setRef(r++, inputs.getRef(i));
            }
        }
    }

    static void marshalOutputs(Function function, CallBuffer results, VmList outputs) {
        CallingConvention.Fragment fragment = function.cconv().results();
        int expected = fragment.isVariadic() ? -1 : fragment.valueCount();
        try {
            if (outputs == null) {
                if (expected != 0) {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT,
                            "no output provided to a function that has outputs");
                }
                return;
            }
            if (expected < 0) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT,
                        "function " + function.qualifiedName() + " has variadic results");
            }
            outputs.resize(0);
            outputs.resize(expected);
            String types = fragment.types();
            int p = 0;
            int r = 0;
            for (int i = 0; i < types.length(); i++) {
                switch (types.charAt(i)) {
                    case 'i' -> outputs.setValueBits(i, ValueType.I32, results.bits(p++));
                    case 'I' -> outputs.setValueBits(i, ValueType.I64, results.bits(p++));
                    case 'f' -> outputs.setValueBits(i, ValueType.F32, results.bits(p++) & 0xFFFF_FFFFL);
                    case 'F' -> outputs.setValueBits(i, ValueType.F64, results.bits(p++));
                    default -> outputs.setRefMove(i, results.takeRef(r++));
                }
            }
        } finally {
            results.releaseRefs();
        }
    }

    /** Drives a {@link Coroutine} on a plain {@link Executor}: one task per resumption. */
    private static final class AsyncInvocation implements Runnable {
        final CompletableFuture<Void> future = new CompletableFuture<>();
        final Coroutine coroutine;
        final Executor executor;

        AsyncInvocation(Context context, Function function, VmList inputs, VmList outputs, Executor executor) {
            this.coroutine = Coroutine.create(context, function, inputs, outputs);
            this.executor = executor;
        }

        @Override
        public void run() {
            try {
                switch (coroutine.resume()) {
                    case COMPLETED -> future.complete(null);
                    case YIELDED -> executor.execute(this);
                    case WAITING -> coroutine.whenReady(() -> executor.execute(this));
                }
            } catch (RuntimeException | Error e) {
                future.completeExceptionally(e);
            }
        }
    }
}
