package dev.ortho.hal.cpu.internal.task;

import dev.ortho.hal.cpu.kernel.WorkgroupState;
import dev.ortho.hal.trace.DispatchTilesEvent;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * What one executor worker keeps for a block processor: its {@link WorkgroupState}s (moved from
 * workgroup to workgroup, never reallocated per tile) and its scratch memory for dispatches that
 * need workgroup local memory. Created lazily on the worker's own thread by the process's
 * worker-state factory; confined to that worker.
 */
final class WorkerSlot {
    private final int processorId;
    private final WorkgroupState plain;
    private MemorySegment scratch = MemorySegment.NULL;
    private WorkgroupState withLocal;
    private long withLocalBytes = -1;
    // The open trace event (tracing only): which execution load and region it covers.
    private DispatchTilesEvent traced;
    private Execution tracedExecution;
    private long tracedPosition;
    private int tracedRegion;

    WorkerSlot(int processorId) {
        this.processorId = processorId;
        this.plain = new WorkgroupState(processorId, MemorySegment.NULL);
    }

    /**
     * The workgroup state to use for a dispatch needing {@code localBytes} of local memory.
     * Allocates only when the size differs from the previous dispatch's (scratch grows, never
     * shrinks; it is plain host scratch owned by the GC-managed auto arena, not a HAL buffer).
     */
    WorkgroupState workgroup(long localBytes) {
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

    /**
     * Counts {@code tiles} of region {@code region} of {@code execution} toward this worker's open
     * trace event, first committing the open one and beginning a new one if it covers another
     * region or submission. One event per worker per region, not per tile.
     */
    void traceTiles(Execution execution, int region, long tiles) {
        if (traced == null || tracedExecution != execution || tracedPosition != execution.position
                || tracedRegion != region) {
            closeTrace();
            traced = execution.openTrace(region, processorId);
            tracedExecution = execution;
            tracedPosition = execution.position;
            tracedRegion = region;
            traced.begin();
        }
        traced.tiles += tiles;
    }

    /** Commits the open trace event, if any (called when the worker stops claiming). */
    void closeTrace() {
        if (traced != null) {
            traced.commit();
            traced = null;
            tracedExecution = null;
        }
    }
}
