package dev.ortho.hal.cpu.internal.executable;

import dev.ortho.base.StatusException;
import dev.ortho.hal.Executable;
import dev.ortho.hal.cpu.kernel.KernelFunction;

/**
 * An executable prepared by a local CPU device ({@code jvm-static} or {@code vmvx-bytecode-fb}):
 * its functions are {@link KernelFunction}s, so every device dispatch loop runs either format the
 * same way. Thread-safe.
 */
public interface LocalExecutable extends Executable {

    /**
     * The function at {@code ordinal}.
     *
     * @throws StatusException OUT_OF_RANGE naming the ordinal and the function count
     */
    KernelFunction function(int ordinal);
}
