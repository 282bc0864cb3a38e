package dev.ortho.hal.cpu.kernel;

import dev.ortho.base.StatusException;
import dev.ortho.hal.Executable;
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
}
