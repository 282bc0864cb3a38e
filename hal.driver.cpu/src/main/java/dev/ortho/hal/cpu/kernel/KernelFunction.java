package dev.ortho.hal.cpu.kernel;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.ExecutableFunctionInfo;

/**
 * A kernel together with what a device needs to dispatch it: the export a {@link KernelLibrary}
 * publishes. {@code info} gives the function's name, the number of 32-bit constants and buffer
 * bindings it reads (checked against every dispatch), its default workgroup size and its static
 * local memory.
 *
 * <p>Immutable and thread-safe.
 *
 * @param info the export's name, constant and binding counts, default workgroup size, local memory
 * @param kernel the code run per workgroup
 */
public record KernelFunction(ExecutableFunctionInfo info, Kernel kernel) {

    /**
     * @throws StatusException INVALID_ARGUMENT if either argument is null, a count or the local
     *     memory is negative, or the default workgroup size is not positive in every dimension
     */
    public KernelFunction {
        if (info == null || kernel == null || info.name() == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "kernel function needs an info with a name and a kernel, got info " + info + " kernel " + kernel);
        }
        if (info.constantCount() < 0 || info.bindingCount() < 0 || info.localMemory() < 0
                || info.workgroupSizeX() <= 0 || info.workgroupSizeY() <= 0 || info.workgroupSizeZ() <= 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "kernel function '" + info.name()
                    + "' has invalid info " + info + ": counts and local memory must be >= 0, workgroup size >= 1");
        }
    }
}
