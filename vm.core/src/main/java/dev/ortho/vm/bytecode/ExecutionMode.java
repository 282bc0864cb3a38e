package dev.ortho.vm.bytecode;

/**
 * How a {@link BytecodeModule} executes its functions.
 *
 * <p>The interpreter is the reference: a compiled function gives the same results, the same
 * trap status codes and messages and the same backtrace frames ({@code module.function:pc}) as
 * the interpreter. Functions the compiler does not cover (yields, {@code call.yieldable},
 * variadic calls, debug breaks, recursion, or a callee that is not compiled) always run in the
 * interpreter; calls of (non-variadic) imports are compiled.
 */
public enum ExecutionMode {
    /** Interpret every function (the default). */
    OFF,
    /**
     * Interpret first; compile the module's compilable functions to JVM classes on the calling
     * thread once its exported functions have been called {@link #LAZY_THRESHOLD} times or its
     * interpreted loops have taken {@link #LAZY_BACK_EDGES} back-edges. A running interpreted
     * activation finishes interpreted; the next external call runs compiled. Exactly one caller
     * compiles: callers on other threads (say, the other task-executor workers running the same
     * VMVX kernel) keep interpreting meanwhile instead of waiting for it, and no thread is
     * started for the compilation.
     */
    LAZY,
    /** Compile the module's compilable functions to JVM classes when the module is created. */
    EAGER;

    /** External calls into a module after which {@link #LAZY} compiles it. */
    public static final int LAZY_THRESHOLD = 64;

    /** Interpreted loop back-edges (branches to an earlier block) after which {@link #LAZY} compiles. */
    public static final int LAZY_BACK_EDGES = 10_000;

    /** Parses {@code off}, {@code lazy} or {@code eager} (case-insensitive); null if none matches. */
    public static ExecutionMode parse(String text) {
        for (ExecutionMode m : values()) {
            if (m.name().equalsIgnoreCase(text)) {
                return m;
            }
        }
        return null;
    }
}
