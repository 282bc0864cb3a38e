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
 * Block-processor tile claims ({@link Execution#drain}, package-private, hence this package):
 * two workers drain one execution of two regions (4 workgroups each, a barrier between them).
 * Every workgroup must run exactly once, no workgroup of region 1 may start before every
 * workgroup of region 0 finished, and exactly one worker must be elected completer of the last
 * region (returns FINISHED). Result: (worker 1 finished, worker 2 finished, -1 if that worker
 * waited more than 2 s for the execution to finish; workgroups that ran other than once; 1 if a
 * region-1 workgroup ran before region 0 was complete).
 */
@JCStressTest
@Description("Execution: epoch-tagged tile claims, region barrier and completer election")
@Outcome(id = {"1, 0, 0, 0", "0, 1, 0, 0"}, expect = ACCEPTABLE, desc = "every tile once, one completer")
@Outcome(id = {"1, 1, 0, 0", "0, 0, 0, 0"}, expect = FORBIDDEN, desc = "completer elected twice, or never (lost completion)")
@Outcome(id = {"-1, .*", ".*, -1, .*"}, expect = FORBIDDEN, desc = "stuck: the execution never finished (lost or double-counted tile)")
@Outcome(id = {"1, 0, 1, 0", "0, 1, 1, 0", "1, 0, 2, 0", "0, 1, 2, 0"}, expect = FORBIDDEN,
        desc = "double claim: a workgroup ran twice (or a claimed one never ran)")
@Outcome(id = {"1, 0, 0, 1", "0, 1, 0, 1"}, expect = FORBIDDEN, desc = "barrier broken: region 1 ran during region 0")
@Outcome(expect = FORBIDDEN, desc = "any other combination of the failures above")
@State
public class TileClaimStress {
    private static final int TILES = 4;
    /** Only used for its wake budget at the region transition; never scheduled. */
    private static final BlockProcessor PROCESSOR =
            new BlockProcessor(null, SharedExecutor.get(), "jcstress-tiles", false);

    final TwoRegionRun run = new TwoRegionRun(PROCESSOR, TILES);
    final WorkerSlot slot1 = new WorkerSlot(0);
    final WorkerSlot slot2 = new WorkerSlot(1);

    private int work(WorkerSlot slot) {
        return run.drainToEnd(Execution.IDLE, slot, PROCESSOR);
    }

    @Actor
    public void worker1(IIII_Result r) {
        r.r1 = work(slot1);
    }

    @Actor
    public void worker2(IIII_Result r) {
        r.r2 = work(slot2);
    }

    @Arbiter
    public void check(IIII_Result r) {
        run.check(r);
    }
}
