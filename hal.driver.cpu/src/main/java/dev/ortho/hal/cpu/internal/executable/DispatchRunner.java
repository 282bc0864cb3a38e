package dev.ortho.hal.cpu.internal.executable;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.cpu.kernel.DispatchState;
import dev.ortho.hal.cpu.kernel.KernelFunction;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * What the tile engine ({@code command.CommandExecutor}) needs to run a dispatch: its
 * {@link DispatchState} (sizes, counts, constants, bindings), its workgroup local memory, and
 * the status a kernel's exception becomes. Stateless and thread-safe.
 */
public final class DispatchRunner {
    private static final ValueLayout.OfInt U32_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Bytes of an indirect workgroup count: three little-endian uint32. */
    public static final long WORKGROUP_COUNT_BYTES = 12;

    private DispatchRunner() {}

    /**
     * The dispatch state of one dispatch of {@code function}: workgroup size from the config (or
     * the function's when the config gives none), count from the config or {@code countSegment}.
     *
     * @throws StatusException INVALID_ARGUMENT for negative sizes or counts, OUT_OF_RANGE for an
     *     indirect count that is too short or above {@code Integer.MAX_VALUE}
     */
    public static DispatchState state(KernelFunction function, DispatchConfig config, int[] constants,
            MemorySegment[] bindings, MemorySegment countSegment, int maxConcurrency) {
        ExecutableFunctionInfo info = function.info();
        int[] size = config.workgroupSizeX() == 0 && config.workgroupSizeY() == 0 && config.workgroupSizeZ() == 0
                ? new int[] {info.workgroupSizeX(), info.workgroupSizeY(), info.workgroupSizeZ()}
                : new int[] {config.workgroupSizeX(), config.workgroupSizeY(), config.workgroupSizeZ()};
        int[] count = countSegment == null
                ? new int[] {config.workgroupCountX(), config.workgroupCountY(), config.workgroupCountZ()}
                : readCount(countSegment);
        if (config.dynamicLocalMemory() < 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "dispatch dynamic local memory "
                    + config.dynamicLocalMemory() + " is negative");
        }
        try {
            return new DispatchState(size, count, constants, bindings, maxConcurrency);
        } catch (StatusException e) {
            throw e.annotate("while dispatching '" + info.name() + "'");
        }
    }

    /** Bytes of workgroup local memory a dispatch needs: the function's static plus the config's dynamic. */
    public static long localBytes(KernelFunction function, DispatchConfig config) {
        return (long) function.info().localMemory() + Math.max(0, config.dynamicLocalMemory());
    }

    /** A kernel's exception as the status the dispatch fails with, naming the function and workgroup. */
    public static StatusException kernelFailure(RuntimeException e, String name, int x, int y, int z) {
        StatusException status = switch (e) {
            case StatusException s -> s;
            case IndexOutOfBoundsException bounds -> new StatusException(StatusCode.OUT_OF_RANGE,
                    "kernel accessed memory out of bounds: " + bounds.getMessage(), bounds);
            default -> new StatusException(StatusCode.UNKNOWN, "kernel threw " + e, e);
        };
        return status.annotate("while running '" + name + "' workgroup (" + x + ", " + y + ", " + z + ")");
    }

    private static int[] readCount(MemorySegment segment) {
        if (segment.byteSize() < WORKGROUP_COUNT_BYTES) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "indirect workgroup count range is "
                    + segment.byteSize() + " bytes, needs " + WORKGROUP_COUNT_BYTES);
        }
        int[] count = new int[3];
        for (int i = 0; i < 3; i++) {
            long value = Integer.toUnsignedLong(segment.get(U32_LE, 4L * i));
            if (value > Integer.MAX_VALUE) {
                throw new StatusException(StatusCode.OUT_OF_RANGE, "indirect workgroup count " + "xyz".charAt(i)
                        + " = " + value + " exceeds " + Integer.MAX_VALUE);
            }
            count[i] = (int) value;
        }
        return count;
    }
}
