package dev.ortho.hal.cpu.internal.task;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.ortho.base.Deadline;
import dev.ortho.hal.spi.TimelineSemaphore;
import dev.ortho.stress.SharedExecutor;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * A waiting thread's tile claims ({@link Execution#help}, issue 18's {@code task_waiter_helps})
 * against a worker draining the same execution of two regions of {@value #TILES} workgroups (a
 * barrier between): the waiter claims one tile at a time (its value is never reached, no
 * deadline) while the worker claims batches; either may retire region 0 (then publishes region
 * 1) or the last tile. Every workgroup must run exactly once, region 1 never during region 0, and
 * exactly one of the two must see FINISHED. Result as in {@link CallerTileStress}.
 */
@JCStressTest
@Description("Execution: a waiter's tile claims against a worker's batch claims")
@Outcome(id = {"1, 0, 0, 0", "0, 1, 0, 0"}, expect = ACCEPTABLE, desc = "every tile once, one completer")
@Outcome(expect = FORBIDDEN, desc = "double or lost completion, a tile run twice or never, the barrier broken, or stuck")
@State
public class WaiterTileStress {
    private static final int TILES = 3;
    private static final BlockProcessor PROCESSOR =
            new BlockProcessor(null, SharedExecutor.get(), "jcstress-waiter-tile", false);
    /** Never signalled: the waiter stops only when nothing is left to claim. */
    private static final TimelineSemaphore NEVER = new TimelineSemaphore("jcstress-never", 0);

    final TwoRegionRun run = new TwoRegionRun(PROCESSOR, TILES);

    @Actor
    public void waiter(IIII_Result r) {
        WorkerSlot slot = new WorkerSlot(2);
        int first = run.execution.help(slot, PROCESSOR, NEVER, 1, Deadline.INFINITE_FUTURE_NANOS);
        r.r1 = run.drainToEnd(first, slot, PROCESSOR);
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
