package dev.ortho.hal.cpu.internal.task;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.cpu.internal.command.StressPrograms;
import dev.ortho.hal.cpu.kernel.KernelFunction;
import dev.ortho.stress.SharedExecutor;
import java.util.concurrent.atomic.AtomicIntegerArray;
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

    final AtomicIntegerArray region0 = new AtomicIntegerArray(TILES);
    final AtomicIntegerArray region1 = new AtomicIntegerArray(TILES);
    volatile int early;
    final Execution execution = new Execution(PROCESSOR, 2);
    final WorkerSlot slot1 = new WorkerSlot(0);
    final WorkerSlot slot2 = new WorkerSlot(1);

    public TileClaimStress() {
        KernelFunction first = new KernelFunction(new ExecutableFunctionInfo("first", 0, 0, 1, 1, 1, 0),
                (dispatch, workgroup) -> region0.incrementAndGet(workgroup.workgroupIdX()));
        KernelFunction second = new KernelFunction(new ExecutableFunctionInfo("second", 0, 0, 1, 1, 1, 0),
                (dispatch, workgroup) -> {
                    for (int i = 0; i < TILES; i++) {
                        if (region0.get(i) != 1) {
                            early++;  // racy increment is fine: any non-zero value is the failure
                        }
                    }
                    region1.incrementAndGet(workgroup.workgroupIdX());
                });
        if (!execution.load(null, StressPrograms.twoRegions(first, second, TILES), null, null)) {
            throw new IllegalStateException("nothing to run: " + execution.error());
        }
    }

    /** Bound on one worker's wait for the execution to finish; only a broken claim hits it. */
    private static final long STUCK_NANOS = 2_000_000_000L;
    /** Set once any state got stuck, so the rest of a broken run reports at once instead of hanging. */
    private static volatile boolean stuckSeen;

    /** Drains until the execution finished; -1 if it never does (a lost or double-counted tile). */
    private int work(WorkerSlot slot) {
        int finished = 0;
        long start = System.nanoTime();
        for (int spins = 1; !execution.isFinished(); spins++) {
            if (execution.drain(slot, PROCESSOR) == Execution.FINISHED) {
                finished++;
            }
            if ((spins & 1023) == 0 && (stuckSeen || System.nanoTime() - start > STUCK_NANOS)) {
                stuckSeen = true;
                return -1;
            }
        }
        return finished;
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
        int wrong = 0;
        for (int i = 0; i < TILES; i++) {
            wrong += Math.abs(region0.get(i) - 1) + Math.abs(region1.get(i) - 1);
        }
        r.r3 = wrong;
        r.r4 = Math.min(early, 1);
    }
}
