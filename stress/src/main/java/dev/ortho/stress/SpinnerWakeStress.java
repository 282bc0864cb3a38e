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
 * The executor's spinner shortcut: scheduling a budget-1 process while a worker spins wakes
 * nobody (the spinner is trusted to find it), so the spinner's exit (decrement, then its
 * run-list re-check before parking) must never miss a push that skipped the wake. Runs on a
 * one-worker executor with a 2 µs spin, so its worker keeps crossing from spinning to parked
 * while the actors schedule.
 */
public final class SpinnerWakeStress {
    private static final Executor SPINNING =
            Executor.builder().name("jcstress-spin").workerCount(1).spinNanos(2_000).build();

    private SpinnerWakeStress() {
    }

    /** Result: (1 if A completed in time, else -1; same for B). */
    @JCStressTest
    @Description("Executor: two budget-1 schedules race the only worker going from spinning to parked")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "both processes ran")
    @Outcome(expect = FORBIDDEN, desc = "lost wake-up: a scheduled process never ran")
    @State
    public static class ScheduleVsSpinExit {
        final ProcessStress.Probe a = new ProcessStress.Probe();
        final ProcessStress.Probe b = new ProcessStress.Probe();
        final Process pa = SPINNING.newProcess("spin-a", (p, w, r) -> r.complete()).onComplete(a::onComplete).build();
        final Process pb = SPINNING.newProcess("spin-b", (p, w, r) -> r.complete()).onComplete(b::onComplete).build();

        @Actor
        public void scheduleA() {
            pa.schedule();
        }

        @Actor
        public void scheduleB() {
            pb.schedule();
        }

        @Arbiter
        public void check(II_Result r) {
            r.r1 = a.await(pa) ? 1 : -1;
            r.r2 = b.await(pb) ? 1 : -1;
        }
    }
}
