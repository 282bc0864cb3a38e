package dev.ortho.vm;

/**
 * One call: the function and its argument and result buffers (IREE's
 * {@code iree_vm_function_call_t}). Mutable and reusable: a {@link Frame} keeps one for the calls it
 * makes, so steady-state calls allocate nothing. Not thread-safe.
 */
public final class Call {
    private Function function;
    private final CallBuffer arguments = new CallBuffer();
    private final CallBuffer results = new CallBuffer();

    /** Creates an empty call. */
    public Call() {
    }

    /**
     * Targets {@code function} and sizes both buffers for its (fixed) calling convention.
     * For variadic functions size the argument buffer with {@link CallBuffer#reset(int, int)}.
     */
    public Call prepare(Function function) {
        this.function = function;
        CallingConvention cc = function.cconv();
        if (!cc.arguments().isVariadic()) {
            arguments.reset(cc.arguments());
        }
        if (!cc.results().isVariadic()) {
            results.reset(cc.results());
        }
        return this;
    }

    /**
     * As {@link #prepare}, but sizes a fixed argument buffer with {@link CallBuffer#resize}
     * (primitive slots not zeroed): for a caller that writes every argument slot before the call,
     * as the interpreter's import calls do. Results are reset as by {@code prepare}.
     */
    public Call prepareToFill(Function function) {
        this.function = function;
        CallingConvention cc = function.cconv();
        if (!cc.arguments().isVariadic()) {
            arguments.resize(cc.arguments().primitiveSlots(), cc.arguments().refSlots());
        }
        if (!cc.results().isVariadic()) {
            results.reset(cc.results());
        }
        return this;
    }

    /** The function called. */
    public Function function() {
        return function;
    }

    /** Arguments (refs borrowed from the caller). */
    public CallBuffer arguments() {
        return arguments;
    }

    /** Results (refs owned by the caller once the call completes). */
    public CallBuffer results() {
        return results;
    }
}
