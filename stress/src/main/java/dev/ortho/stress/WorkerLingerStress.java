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
 * The worker's linger (task.scheduler {@code Worker.linger}): after work, one worker polls for
 * more while holding the executor's linger token, and a scheduler that claims the token (CAS
 * 1 → 0) wakes nobody else. The linger here is short (2 µs) and there is no base spin, so
 * schedules land in every phase: draining, lingering, claimed just as the window ends (the
 * lingerer's own CAS fails), after the token was given back, parked. A schedule that claimed the
 * token of a worker that then parks without scanning is a lost wake-up: the process never runs.
 */
public final class WorkerLingerStress {
    private static final Executor LINGERING =
            Executor.builder().name("jcstress-linger").workerCount(2).spinNanos(0).lingerNanos(2_000).build();
    /**
     * The adaptive linger (the local-task default): it lingers only after work that came back
     * within its window, which jcstress's back-to-back iterations usually do, and gives the token
     * back on the same paths (window end, claim), plus its backoff exit.
     */
    private static final Executor ADAPTIVE = Executor.builder().name("jcstress-adaptive-linger").workerCount(2)
            .spinNanos(0).adaptiveLingerNanos(20_000).build();

    private WorkerLingerStress() {
    }

    /** Result: (completions of a, completions of b); -1 for one that never ran. */
    @JCStressTest
    @Description("Worker linger: two schedulers race the lingering worker's token and window end")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "both processes ran")
    @Outcome(expect = FORBIDDEN, desc = "lost wake-up: a scheduled process never ran")
    @State
    public static class TwoSchedules {
        final ProcessStress.Probe pa = new ProcessStress.Probe();
        final ProcessStress.Probe pb = new ProcessStress.Probe();
        final Process a = LINGERING.newProcess("a", (p, w, r) -> r.complete()).onComplete(pa::onComplete).build();
        final Process b = LINGERING.newProcess("b", (p, w, r) -> r.complete()).onComplete(pb::onComplete).build();

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

    /** Result: (completions of a, completions of b); -1 for one that never ran. */
    @JCStressTest
    @Description("Adaptive worker linger: two schedulers race the lingering worker's token and window end")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "both processes ran")
    @Outcome(expect = FORBIDDEN, desc = "lost wake-up: a scheduled process never ran")
    @State
    public static class AdaptiveTwoSchedules {
        final ProcessStress.Probe pa = new ProcessStress.Probe();
        final ProcessStress.Probe pb = new ProcessStress.Probe();
        final Process a = ADAPTIVE.newProcess("a", (p, w, r) -> r.complete()).onComplete(pa::onComplete).build();
        final Process b = ADAPTIVE.newProcess("b", (p, w, r) -> r.complete()).onComplete(pb::onComplete).build();

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
