package dev.ortho.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.ortho.task.Executor;
import dev.ortho.task.Process;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The worker's idle path (task.scheduler {@code Worker.idleUntilWork}): a spinning worker holds
 * no idle bit and polls the run lists; only before parking does it set its bit and re-check.
 * Here the spin is short (2 µs), so schedules land in every phase: draining, spinning, between
 * the spin and the bit, parked. A schedule that neither a spinner sees nor a claim of a set bit
 * reaches is a lost wake-up: the process never runs.
 */
public final class WorkerWakeStress {
    private static final Executor SPINNING =
            Executor.builder().name("jcstress-spin").workerCount(2).spinNanos(2_000).build();

    private WorkerWakeStress() {
    }

    /** Result: (completions of a, completions of b); -1 for one that never ran. */
    @JCStressTest
    @Description("Worker idle path: two schedulers race workers moving from spinning to parked")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "both processes ran")
    @Outcome(expect = FORBIDDEN, desc = "lost wake-up: a scheduled process never ran")
    @State
    public static class TwoSchedules {
        final ProcessStress.Probe pa = new ProcessStress.Probe();
        final ProcessStress.Probe pb = new ProcessStress.Probe();
        final Process a = SPINNING.newProcess("a", (p, w, r) -> r.complete()).onComplete(pa::onComplete).build();
        final Process b = SPINNING.newProcess("b", (p, w, r) -> r.complete()).onComplete(pb::onComplete).build();

        @Actor
        public void scheduleA() {
            a.schedule();
        }

        @Actor
        public void scheduleB() {
            b.schedule();
        }

        @Arbiter
        public void check(II_Result r) {
            r.r1 = pa.await(a) ? pa.completions.get() : -1;
            r.r2 = pb.await(b) ? pb.completions.get() : -1;
        }
    }
}
