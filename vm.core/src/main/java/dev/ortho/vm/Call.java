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
