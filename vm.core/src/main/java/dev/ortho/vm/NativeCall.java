package dev.ortho.vm;

import dev.ortho.base.Deadline;
import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;

/**
 * What a {@link NativeFunction} sees of its activation: arguments, results, locals preserved
 * across yields, yield/wait helpers and its module's imports.
 *
 * <p>One instance is cached per pooled frame and rebound on each activation, so native calls
 * allocate nothing. Valid only during the {@link NativeFunction#call} it is passed to. Not
 * thread-safe.
 */
public final class NativeCall {
    /** i32 locals available to every native activation. */
    public static final int LOCAL_I32_COUNT = 16;
    /** Ref locals available to every native activation. */
    public static final int LOCAL_REF_COUNT = 4;

    private Stack stack;
    private Frame frame;
    private Function[] imports;
    private boolean resume;
    /** Whether this activation's locals are zero or preserved already (see {@link #locals()}). */
    private boolean localsReady;
    private StatusException waitStatus;
    /**
     * The module state the last call through this (reused) object used, and the module and
     * context it belongs to: {@link NativeModule} skips the context's lookup when they match.
     */
    Module stateModule;
    Context stateContext;
    Object state;

    NativeCall() {
    }

    void bind(Stack stack, Frame frame, Function[] imports, boolean resume, StatusException waitStatus) {
        this.stack = stack;
        this.frame = frame;
        this.imports = imports;
        this.resume = resume;
        this.localsReady = resume; // a resumed activation finds its locals as it left them
        this.waitStatus = waitStatus;
    }

    /** Arguments (refs borrowed: retain what you keep beyond the call). */
    public CallBuffer args() {
        return frame.call().arguments();
    }

    /** Results to fill before completing (store refs with a count the caller will own). */
    public CallBuffer results() {
        return frame.call().results();
    }

    /** The function being called. */
    public Function function() {
        return frame.function();
    }

    /** The stack this call runs on. */
    public Stack stack() {
        return stack;
    }

    /** True when called again after a yield or wait. */
    public boolean isResume() {
        return resume;
    }

    /**
     * {@value #LOCAL_I32_COUNT} i32 locals, zero on the first activation and preserved across
     * yields (the frame's i32 registers).
     */
    public int[] locals() {
        int[] locals = frame.i32Registers();
        if (!localsReady) { // the frame is not zeroed on entry (NativeModule): zero on first use
            java.util.Arrays.fill(locals, 0, LOCAL_I32_COUNT, 0);
            localsReady = true;
        }
        return locals;
    }

    /**
     * {@value #LOCAL_REF_COUNT} ref locals preserved across yields. They are cleared without
     * release when the call completes and released if the invocation fails.
     */
    public RefObject[] refLocals() {
        return frame.refRegisters();
    }

    /** On resume after a wait: null if the wait succeeded, else its failure (e.g. DEADLINE_EXCEEDED). */
    public StatusException waitResult() {
        return waitStatus;
    }

    /** Yields without waiting (cooperative scheduling); return the result from the function. */
    public CallOutcome yieldNow() {
        return CallOutcome.DEFERRED;
    }

    /** Yields until {@code deadline}; return the result from the function. */
    public CallOutcome waitUntil(Deadline deadline) {
        stack.enterWait(WaitType.UNTIL, deadline);
        return CallOutcome.DEFERRED;
    }

    /** Yields until any of {@code sources} is ready or {@code deadline} passes. */
    public CallOutcome waitAny(Deadline deadline, WaitSource... sources) {
        stack.enterWait(WaitType.ANY, deadline, sources);
        return CallOutcome.DEFERRED;
    }

    /** Yields until all of {@code sources} are ready or {@code deadline} passes. */
    public CallOutcome waitAll(Deadline deadline, WaitSource... sources) {
        stack.enterWait(WaitType.ALL, deadline, sources);
        return CallOutcome.DEFERRED;
    }

    /**
     * The function import {@code ordinal} resolved to in this context, or null for an unresolved
     * optional import.
     *
     * @throws StatusException INVALID_ARGUMENT for a bad ordinal
     */
    public Function importFunction(int ordinal) {
        if (ordinal < 0 || ordinal >= imports.length) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "import ordinal " + ordinal + " out of range [0, " + imports.length + ")");
        }
        return imports[ordinal];
    }

    /**
     * Prepares this frame's reusable outgoing call to import {@code ordinal}: fill its
     * {@link Call#arguments()} and pass it to {@link #invoke(Call)}.
     *
     * @throws StatusException NOT_FOUND if the import is optional and unresolved
     */
    public Call prepareImport(int ordinal) {
        Function f = importFunction(ordinal);
        if (f == null) {
            throw new StatusException(StatusCode.NOT_FOUND, "optional import " + ordinal + " of module "
                    + frame.function().module().name() + " is not resolved");
        }
        return frame.outgoing().prepare(f);
    }

    /**
     * Runs {@code call} to completion on this stack; if the callee yields it is resumed in place,
     * blocking this thread on its waits. Results are then in {@link Call#results()}, owned by the
     * caller.
     */
    public void invoke(Call call) {
        Invocation.drive(stack, frame, call.function().module().beginCall(stack, call));
    }
}
