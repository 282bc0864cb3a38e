package dev.ortho.hal.cpu.internal.task;

import dev.ortho.hal.cpu.internal.command.WorkgroupScratch;
import dev.ortho.hal.trace.DispatchTilesEvent;

/**
 * What one executor worker keeps for a block processor: its {@link WorkgroupScratch} and its open
 * trace event. Created lazily on the worker's own thread by the process's
 * worker-state factory; confined to that worker.
 */
final class WorkerSlot extends WorkgroupScratch {
    // The open trace event (tracing only): which execution load and region it covers.
    private DispatchTilesEvent traced;
    private Execution tracedExecution;
    private long tracedPosition;
    private int tracedRegion;
    /** Tiles run with this slot by {@link Execution#help} (the caller slot's count; confined). */
    long tilesRun;

    WorkerSlot(int processorId) {
        super(processorId);
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
            traced = execution.openTrace(region, processorId());
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
