package dev.ortho.hal.cpu.kernel;

import java.lang.foreign.MemorySegment;

/**
 * The per-workgroup part of a dispatch: IREE's {@code iree_hal_executable_workgroup_state_v0_t}.
 * It says which workgroup of the grid a {@link Kernel#run} call computes, on which processor,
 * with which scratch memory.
 *
 * <p>Owned by the device's dispatch loop, which creates one per executing thread and moves it
 * from workgroup to workgroup with {@link #moveTo} so that no workgroup allocates. Kernels read
 * it and must not keep it. Not thread-safe (one thread uses one state).
 */
public final class WorkgroupState {
    private final int processorId;
    private final MemorySegment localMemory;
    private int workgroupIdX;
    private int workgroupIdY;
    private int workgroupIdZ;

    /**
     * @param processorId the executing processor's id, in {@code [0, maxConcurrency)}
     * @param localMemory the workgroup's scratch memory ({@link MemorySegment#NULL} for none);
     *     borrowed, contents undefined at the start of each workgroup
     */
    public WorkgroupState(int processorId, MemorySegment localMemory) {
        this.processorId = processorId;
        this.localMemory = localMemory;
    }

    /** Sets the workgroup id for the next {@link Kernel#run} call (dispatch loops only). */
    public void moveTo(int x, int y, int z) {
        workgroupIdX = x;
        workgroupIdY = y;
        workgroupIdZ = z;
    }

    /** The workgroup's x coordinate in {@code [0, workgroupCountX)}. */
    public int workgroupIdX() {
        return workgroupIdX;
    }

    /** The workgroup's y coordinate in {@code [0, workgroupCountY)}. */
    public int workgroupIdY() {
        return workgroupIdY;
    }

    /** The workgroup's z coordinate in {@code [0, workgroupCountZ)}. */
    public int workgroupIdZ() {
        return workgroupIdZ;
    }

    /** The id of the processor running the workgroup, in {@code [0, maxConcurrency)}. */
    public int processorId() {
        return processorId;
    }

    /** Scratch memory of the function's static plus the dispatch's dynamic local memory size. */
    public MemorySegment localMemory() {
        return localMemory;
    }
}
