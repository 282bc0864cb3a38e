package dev.ortho.hal.cpu.internal.task;

import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.cpu.internal.command.StressPrograms;
import dev.ortho.hal.cpu.kernel.KernelFunction;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * One jcstress state of the block-processor tests ({@link TileClaimStress}, {@link CallerTileStress}):
 * an execution of two regions of {@code tiles} workgroups with a barrier between them, counting
 * how often each workgroup ran and whether a region-1 workgroup ran before region 0 finished.
 */
final class TwoRegionRun {
    /** Bound on one thread's wait for the execution to finish; only a broken claim hits it. */
    private static final long STUCK_NANOS = 2_000_000_000L;
    /** Set once any state got stuck, so the rest of a broken run reports at once instead of hanging. */
    private static volatile boolean stuckSeen;

    private final int tiles;
    private final AtomicIntegerArray region0;
    private final AtomicIntegerArray region1;
    private volatile int early;
    final Execution execution;

    TwoRegionRun(BlockProcessor processor, int tiles) {
        this.tiles = tiles;
        this.region0 = new AtomicIntegerArray(tiles);
        this.region1 = new AtomicIntegerArray(tiles);
        this.execution = new Execution(processor, 2);
        KernelFunction first = new KernelFunction(new ExecutableFunctionInfo("first", 0, 0, 1, 1, 1, 0),
                (dispatch, workgroup) -> region0.incrementAndGet(workgroup.workgroupIdX()));
        KernelFunction second = new KernelFunction(new ExecutableFunctionInfo("second", 0, 0, 1, 1, 1, 0),
                (dispatch, workgroup) -> {
                    for (int i = 0; i < tiles; i++) {
                        if (region0.get(i) != 1) {
                            early++;  // racy increment is fine: any non-zero value is the failure
                        }
                    }
                    region1.incrementAndGet(workgroup.workgroupIdX());
                });
        if (!execution.load(null, StressPrograms.twoRegions(first, second, tiles), null, null)) {
            throw new IllegalStateException("nothing to run: " + execution.error());
        }
    }

    /**
     * Drains with {@code slot} until the execution finished, counting {@code FINISHED} results
     * (including {@code firstResult}, the result of a call made before); -1 if it never finishes
     * (a lost or double-counted tile).
     */
    int drainToEnd(int firstResult, WorkerSlot slot, BlockProcessor processor) {
        int finished = firstResult == Execution.FINISHED ? 1 : 0;
        long start = System.nanoTime();
        for (int spins = 1; !execution.isFinished(); spins++) {
            if (execution.drain(slot, processor) == Execution.FINISHED) {
                finished++;
            }
            if ((spins & 1023) == 0 && (stuckSeen || System.nanoTime() - start > STUCK_NANOS)) {
                stuckSeen = true;
                return -1;
            }
        }
        return finished;
    }

    /** r3: workgroups that ran other than once; r4: 1 if region 1 ran during region 0. */
    void check(IIII_Result r) {
        int wrong = 0;
        for (int i = 0; i < tiles; i++) {
            wrong += Math.abs(region0.get(i) - 1) + Math.abs(region1.get(i) - 1);
        }
        r.r3 = wrong;
        r.r4 = Math.min(early, 1);
    }
}
