package dev.ortho.hal.cpu.kernel;

import dev.ortho.base.StatusException;
import dev.ortho.hal.Executable;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * An executable an {@link ExecutableLoader} prepared for a CPU device: besides the
 * {@link Executable} reflection, each exported function is a {@link KernelFunction}, so the
 * devices' dispatch loops run every format the same way (IREE's
 * {@code iree_hal_local_executable_t}).
 *
 * <p>Implementations are thread-safe: the device calls {@link #function} and the functions'
 * kernels from any number of threads at once. The reference count starts at 1 (owned by the
 * caller of {@link ExecutableLoader#load}); when it reaches 0 the executable frees what it holds,
 * and the device guarantees that no dispatch of it is in flight then (it retains executables used
 * by submitted work).
 */
@ConsumerType
public interface KernelExecutable extends Executable {

    /**
     * The function at {@code ordinal}, in the order of {@link #functionInfo(int)}.
     *
     * @throws StatusException OUT_OF_RANGE naming the ordinal and the function count
     */
    KernelFunction function(int ordinal);

    /**
     * An executable of {@code format} exporting {@code functions} in that order, for loaders whose
     * executables hold nothing but their functions: reference count 1, {@code onLastRelease} (may be
     * null) run once when it reaches 0, and a release below 0 fails with FAILED_PRECONDITION.
     * Thread-safe.
     *
     * @param description names the executable in messages and {@code toString()}, e.g.
     *     {@code "jvm-static executable of library 'builtin'"}
     * @throws StatusException INVALID_ARGUMENT if a function name repeats
     */
    static KernelExecutable of(String format, String description, List<KernelFunction> functions,
            Runnable onLastRelease) {
        Set<String> names = new HashSet<>();
        for (KernelFunction function : functions) {
            if (!names.add(function.info().name())) {
                throw new StatusException(dev.ortho.base.StatusCode.INVALID_ARGUMENT, description
                        + " exports function '" + function.info().name() + "' twice");
            }
        }
        return new FixedExecutable(format, description, List.copyOf(functions), onLastRelease);
    }
}
