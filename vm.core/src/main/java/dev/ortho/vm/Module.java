package dev.ortho.vm;

import dev.ortho.base.StatusException;
import java.util.List;
import java.util.Map;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * A loadable unit of functions (IREE's {@code iree_vm_module_t}): native Java modules
 * ({@link NativeModule}), bytecode modules and anything else that implements this interface.
 *
 * <p>A module is immutable and may be registered in many {@link Context}s at once; everything
 * mutable lives in the per-context <em>state</em> object it allocates ({@link #allocState}). The
 * context calls {@link #resolveImport} once per import after allocation, runs the module's
 * {@code __init} export if any, and frees the state on close after {@code __deinit}.
 *
 * <p>Calls: {@link #beginCall} pushes the module's frame on the {@link Stack}, runs, and either
 * completes (writing results and popping its frame) or returns {@link CallOutcome#DEFERRED}
 * leaving the frame (and possibly a {@link FrameType#WAIT} frame above it) for
 * {@link #resumeCall}. On a thrown {@link StatusException} the module leaves its frames in place:
 * the invocation formats the backtrace and unwinds them.
 *
 * <p>Implementations must be thread-safe for lookups; calls with different stacks may run
 * concurrently, each against its context's state.
 */
@ConsumerType
public interface Module {
    /** The module name used for resolution ({@code hal}, {@code yieldable_test}). */
    String name();

    /** The module version checked against {@link ModuleDependency#minimumVersion()}. */
    int version();

    /** Module-level reflection attributes. */
    default Map<String, String> attrs() {
        return Map.of();
    }

    /** Modules this one needs, checked before its imports are resolved. */
    List<ModuleDependency> dependencies();

    /** Imports in ordinal order (linkage IMPORT or IMPORT_OPTIONAL, full names). */
    List<Function> imports();

    /** Exports in ordinal order. */
    List<Function> exports();

    /**
     * The export named {@code name}, or null if there is none (the caller turns that into
     * NOT_FOUND; a miss must be cheap).
     */
    Function lookupExport(String name);

    /**
     * Allocates this module's state for {@code context}. The state is opaque to the VM.
     *
     * @throws StatusException RESOURCE_EXHAUSTED or any module-specific failure
     */
    Object allocState(Context context);

    /**
     * Creates a child state for a forked context from {@code parentState}.
     *
     * @throws StatusException UNIMPLEMENTED if the module's state cannot be forked
     */
    Object forkState(Context childContext, Object parentState);

    /** Frees a state created by {@link #allocState} or {@link #forkState}; called exactly once. */
    void freeState(Object state);

    /**
     * Records that import {@code ordinal} resolved to {@code function} in the context owning
     * {@code state}. Unresolved optional imports are never reported.
     *
     * @throws StatusException if the module cannot use {@code function}
     */
    void resolveImport(Object state, int ordinal, Function function);

    /** Delivers a system signal to the module implementation (before/after {@code __notify}). */
    default void notify(Object state, Signal signal) {
    }

    /**
     * Begins {@code call} (whose function belongs to this module) on {@code stack}.
     *
     * @return COMPLETED with results written, or DEFERRED if it yielded
     * @throws StatusException on failure, frames left on the stack for the unwinder
     */
    CallOutcome beginCall(Stack stack, Call call);

    /**
     * Resumes the call owning {@code frame}, the top frame of {@code stack} (a WAIT frame entered
     * by this module's function, or this module's own frame after a callee completed or a plain
     * yield).
     *
     * @return COMPLETED (frame popped, results written) or DEFERRED
     */
    CallOutcome resumeCall(Stack stack, Frame frame);

    /** A source location for {@code pc} in {@code function}, or null if unknown (backtraces print "-"). */
    default String sourceLocation(Function function, long pc) {
        return null;
    }
}
