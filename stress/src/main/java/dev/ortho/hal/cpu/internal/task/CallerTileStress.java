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
    private static final long STUCK_NANOS = 2_000_000_000L;

    final AtomicIntegerArray region0 = new AtomicIntegerArray(TILES);
    final AtomicIntegerArray region1 = new AtomicIntegerArray(TILES);
    volatile int early;
    final Execution execution = new Execution(PROCESSOR, 2);

    public CallerTileStress() {
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

    /** Drains (after {@code firstTile}'s result, if any) until finished; -1 if it never is. */
    private int drainToEnd(int firstTile, WorkerSlot slot) {
        int finished = firstTile == Execution.FINISHED ? 1 : 0;
        long start = System.nanoTime();
        for (int spins = 1; !execution.isFinished(); spins++) {
            if (execution.drain(slot, PROCESSOR) == Execution.FINISHED) {
                finished++;
            }
            if ((spins & 1023) == 0 && System.nanoTime() - start > STUCK_NANOS) {
                return -1;
            }
        }
        return finished;
    }

    @Actor
    public void caller(IIII_Result r) {
        WorkerSlot slot = new WorkerSlot(0);
        r.r1 = drainToEnd(execution.runFirstTile(slot, PROCESSOR), slot);
    }

    @Actor
    public void worker(IIII_Result r) {
        r.r2 = drainToEnd(Execution.IDLE, new WorkerSlot(1));
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
