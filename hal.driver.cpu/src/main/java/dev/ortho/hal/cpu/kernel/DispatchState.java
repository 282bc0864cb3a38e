package dev.ortho.hal.cpu.kernel;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.lang.foreign.MemorySegment;

/**
 * What every workgroup of one dispatch shares: IREE's
 * {@code iree_hal_executable_dispatch_state_v0_t} — the workgroup size and count, the 32-bit
 * constants, the bound buffers and the device's concurrency.
 *
 * <p>Built by the device once per dispatch (not per workgroup) and shared by every thread that
 * runs the dispatch; immutable, so thread-safe. Binding segments are views of device buffers
 * that are valid only while the dispatch runs; kernels must not keep them. Multi-byte values in
 * buffers are little-endian (the HAL's byte order).
 *
 * <p>Index accessors fail with {@link StatusException} OUT_OF_RANGE (naming the index and the
 * count), never with an unchecked index exception.
 */
public final class DispatchState {
    private final int workgroupSizeX;
    private final int workgroupSizeY;
    private final int workgroupSizeZ;
    private final int workgroupCountX;
    private final int workgroupCountY;
    private final int workgroupCountZ;
    private final int maxConcurrency;
    private final int[] constants;
    private final MemorySegment[] bindings;

    /**
     * @param workgroupSize the x, y, z workgroup size (each at least 1)
     * @param workgroupCount the x, y, z workgroup count (each at least 0)
     * @param constants the dispatch's 32-bit constants; the array is owned by the state afterwards
     * @param bindings the bound buffer ranges in binding order; owned by the state afterwards
     * @param maxConcurrency how many threads may run workgroups at once (at least 1)
     * @throws StatusException INVALID_ARGUMENT for arrays of the wrong length or null, or sizes,
     *     counts or concurrency outside the ranges above
     */
    public DispatchState(int[] workgroupSize, int[] workgroupCount, int[] constants, MemorySegment[] bindings,
            int maxConcurrency) {
        if (workgroupSize == null || workgroupSize.length != 3 || workgroupCount == null
                || workgroupCount.length != 3 || constants == null || bindings == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "dispatch state needs 3 workgroup sizes, 3 counts, constants and bindings");
        }
        for (int i = 0; i < 3; i++) {
            if (workgroupSize[i] < 1 || workgroupCount[i] < 0) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "dispatch workgroup size "
                        + workgroupSize[i] + " / count " + workgroupCount[i] + " in dimension " + "xyz".charAt(i)
                        + " is invalid: size must be >= 1 and count >= 0");
            }
        }
        if (maxConcurrency < 1) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "dispatch max concurrency " + maxConcurrency + " is below 1");
        }
        for (int i = 0; i < bindings.length; i++) {
            if (bindings[i] == null) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "dispatch binding " + i + " is null");
            }
        }
        this.workgroupSizeX = workgroupSize[0];
        this.workgroupSizeY = workgroupSize[1];
        this.workgroupSizeZ = workgroupSize[2];
        this.workgroupCountX = workgroupCount[0];
        this.workgroupCountY = workgroupCount[1];
        this.workgroupCountZ = workgroupCount[2];
        this.constants = constants;
        this.bindings = bindings;
        this.maxConcurrency = maxConcurrency;
    }

    public int workgroupSizeX() {
        return workgroupSizeX;
    }

    public int workgroupSizeY() {
        return workgroupSizeY;
    }

    public int workgroupSizeZ() {
        return workgroupSizeZ;
    }

    public int workgroupCountX() {
        return workgroupCountX;
    }

    public int workgroupCountY() {
        return workgroupCountY;
    }

    public int workgroupCountZ() {
        return workgroupCountZ;
    }

    /** The most threads that may run workgroups of this dispatch at once (1 on local-sync). */
    public int maxConcurrency() {
        return maxConcurrency;
    }

    /** Number of 32-bit constants. */
    public int constantCount() {
        return constants.length;
    }

    /**
     * Constant {@code index} as a 32-bit integer.
     *
     * @throws StatusException OUT_OF_RANGE if {@code index} is not in {@code [0, constantCount())}
     */
    public int constant(int index) {
        if (index < 0 || index >= constants.length) {
            throw outOfRange("constant", index, constants.length);
        }
        return constants[index];
    }

    /** Constant {@code index} reinterpreted as an IEEE float. As {@link #constant(int)}. */
    public float constantF32(int index) {
        return Float.intBitsToFloat(constant(index));
    }

    /** Number of bound buffers. */
    public int bindingCount() {
        return bindings.length;
    }

    /**
     * The bound range of binding {@code index}, {@link #bindingLength} bytes long.
     *
     * @throws StatusException OUT_OF_RANGE if {@code index} is not in {@code [0, bindingCount())}
     */
    public MemorySegment binding(int index) {
        if (index < 0 || index >= bindings.length) {
            throw outOfRange("binding", index, bindings.length);
        }
        return bindings[index];
    }

    /** The byte length of binding {@code index}. As {@link #binding(int)}. */
    public long bindingLength(int index) {
        return binding(index).byteSize();
    }

    /**
     * Checks that binding {@code index} holds at least {@code bytes} bytes: the check a kernel
     * makes once per workgroup before its loop.
     *
     * @throws StatusException OUT_OF_RANGE naming the binding, the bytes needed and its length
     */
    public MemorySegment requireBinding(int index, long bytes) {
        MemorySegment segment = binding(index);
        if (bytes < 0 || segment.byteSize() < bytes) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "binding " + index + " needs " + bytes
                    + " bytes but its length is " + segment.byteSize());
        }
        return segment;
    }

    private static StatusException outOfRange(String what, int index, int count) {
        return new StatusException(StatusCode.OUT_OF_RANGE, what + " index " + index + " is outside [0, " + count + ")");
    }
}
