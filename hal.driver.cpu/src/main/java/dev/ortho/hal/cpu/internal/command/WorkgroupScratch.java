package dev.ortho.hal.cpu.internal.command;

import dev.ortho.hal.cpu.kernel.WorkgroupState;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * What one worker of the tile engine keeps between tiles: its {@link WorkgroupState}s (moved from
 * workgroup to workgroup, never reallocated per tile) and its scratch memory for dispatches that
 * need workgroup local memory. Confined to its worker (an executor worker of local-task, or the
 * caller running a submission inline).
 */
public class WorkgroupScratch {
    private final int processorId;
    private final WorkgroupState plain;
    private MemorySegment scratch = MemorySegment.NULL;
    private WorkgroupState withLocal;
    private long withLocalBytes = -1;

    /** @param processorId the processor id kernels see (the worker's index) */
    public WorkgroupScratch(int processorId) {
        this.processorId = processorId;
        this.plain = new WorkgroupState(processorId, MemorySegment.NULL);
    }

    /** The worker's index. */
    public final int processorId() {
        return processorId;
    }

    /**
     * The workgroup state to use for a dispatch needing {@code localBytes} of local memory.
     * Allocates only when the size differs from the previous dispatch's (scratch grows, never
     * shrinks; it is plain host scratch owned by the GC-managed auto arena, not a HAL buffer).
     */
    public final WorkgroupState workgroup(long localBytes) {
        if (localBytes == 0) {
            return plain;
        }
        if (localBytes != withLocalBytes) {
            if (scratch.byteSize() < localBytes) {
                scratch = Arena.ofAuto().allocate(localBytes, 64);
            }
            withLocal = new WorkgroupState(processorId, scratch.asSlice(0, localBytes));
            withLocalBytes = localBytes;
        }
        return withLocal;
    }
}
