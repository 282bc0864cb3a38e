package dev.ortho.hal.cpu.internal.task;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.ortho.stress.SharedExecutor;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * The submitting thread's first tile ({@link Execution#runFirstTile}, issue 18) against a worker
 * draining the same execution of two regions of {@value #TILES} workgroups (a barrier between).
 * The caller claims one tile while the worker claims batches; either may retire region 0 (the
 * caller then publishes region 1 itself) or the last tile. Every workgroup must run exactly once,
 * region 1 never during region 0, and exactly one of the two must see FINISHED. Result: (caller
 * finished, worker finished, -1 if one waited more than 2 s; workgroups that ran other than once;
 * 1 if a region-1 workgroup ran before region 0 was complete).
 */
@JCStressTest
@Description("Execution: the caller's first tile against a worker's batch claims")
@Outcome(id = {"1, 0, 0, 0", "0, 1, 0, 0"}, expect = ACCEPTABLE, desc = "every tile once, one completer")
@Outcome(expect = FORBIDDEN, desc = "double or lost completion, a tile run twice or never, the barrier broken, or stuck")
@State
public class CallerTileStress {
    private static final int TILES = 2;
    /** Its process is scheduled by the caller's tile but never has an execution installed: drains find nothing. */
    private static final BlockProcessor PROCESSOR =
            new BlockProcessor(null, SharedExecutor.get(), "jcstress-caller-tile", false);

    final TwoRegionRun run = new TwoRegionRun(PROCESSOR, TILES);

    @Actor
    public void caller(IIII_Result r) {
        WorkerSlot slot = new WorkerSlot(0);
        r.r1 = run.drainToEnd(run.execution.runFirstTile(slot, PROCESSOR), slot, PROCESSOR);
    }

    @Actor
    public void worker(IIII_Result r) {
        r.r2 = run.drainToEnd(Execution.IDLE, new WorkerSlot(1), PROCESSOR);
    }

    @Arbiter
    public void check(IIII_Result r) {
        run.check(r);
    }
}
