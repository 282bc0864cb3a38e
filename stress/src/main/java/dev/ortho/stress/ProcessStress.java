package dev.ortho.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.task.Process;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * The executor's process lifecycle (task.scheduler {@code ProcessImpl}) through its public API:
 * suspend-count signals, cancellation and the sleep/wake protocol of {@link Process#schedule()},
 * all racing the executor's own workers ({@link SharedExecutor}). Completion is asynchronous, so
 * each arbiter waits for the completion callback, bounded: a process that never completes within
 * {@link #HANG_SECONDS} is reported as such (a lost wake-up) and cancelled.
 */
public final class ProcessStress {
    static final long HANG_SECONDS = 10;

    private ProcessStress() {
    }

    /** Per-state bookkeeping shared by the tests. */
    static final class Probe {
        final AtomicInteger drains = new AtomicInteger();
        final AtomicInteger completions = new AtomicInteger();
        final CountDownLatch completed = new CountDownLatch(1);
        volatile StatusException error;

        void onComplete(Process p, StatusException e) {
            error = e;
            completions.incrementAndGet();
            completed.countDown();
        }

        /** True if the completion callback ran within the bound. */
        boolean await(Process p) {
            try {
                if (completed.await(HANG_SECONDS, TimeUnit.SECONDS)) {
                    return true;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            p.cancel();  // do not leave a stuck process behind for the next iterations
            return false;
        }
    }

    /** Result: (drains, completion callbacks), -1 drains if it never completed. */
    @JCStressTest
    @Description("Process: two signals race to drive the suspend count from 2 to 0")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "activated once, drained once, completed once")
    @Outcome(id = "-1, 0", expect = FORBIDDEN, desc = "lost activation: both signals returned, the process never ran")
    @Outcome(id = {"2, 1", "2, 2"}, expect = FORBIDDEN, desc = "scheduled twice: drained after completion")
    @Outcome(id = "1, 2", expect = FORBIDDEN, desc = "completion callback ran twice")
    @Outcome(expect = FORBIDDEN, desc = "other counts")
    @State
    public static class TwoSignals {
        final Probe probe = new Probe();
        final Process process = SharedExecutor.get()
                .newProcess("two-signals", (p, w, r) -> {
                    probe.drains.incrementAndGet();
                    r.complete();
                })
                .suspendCount(2).onComplete(probe::onComplete).build();

        @Actor
        public void signal1() {
            process.signal();
        }

        @Actor
        public void signal2() {
            process.signal();
        }

        @Arbiter
        public void check(II_Result r) {
            boolean done = probe.await(process);
            r.r1 = done ? probe.drains.get() : -1;
            r.r2 = probe.completions.get();
        }
    }

    /**
     * Result: (completion callbacks, 1 if it completed with CANCELLED / 0 with success, 1 if
     * {@link Process#error()} afterwards disagrees with what the callback was told).
     */
    @JCStressTest
    @Description("Process: the last signal races cancel()")
    @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "cancel won: completed once with CANCELLED")
    @Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "the drain completed before cancel; cancel was a no-op")
    @Outcome(id = {"1, 0, 1"}, expect = FORBIDDEN,
            desc = "cancel() of a completed process changed its error() after the callback saw success")
    @Outcome(id = {"2, 0, 0", "2, 1, 0", "2, 0, 1", "2, 1, 1"}, expect = FORBIDDEN, desc = "completion callback ran twice")
    @Outcome(expect = FORBIDDEN, desc = "never completed (hang) or other counts")
    @State
    public static class SignalVsCancel {
        final Probe probe = new Probe();
        final Process process = SharedExecutor.get()
                .newProcess("signal-vs-cancel", (p, w, r) -> {
                    probe.drains.incrementAndGet();
                    r.complete();
                })
                .suspendCount(1).onComplete(probe::onComplete).build();

        @Actor
        public void signal() {
            process.signal();
        }

        @Actor
        public void cancel() {
            process.cancel();
        }

        @Arbiter
        public void check(III_Result r) {
            if (!probe.await(process)) {
                r.r1 = 0;
                r.r2 = -1;
                return;
            }
            StatusException told = probe.error;
            r.r1 = probe.completions.get();
            r.r2 = told != null && told.code() == StatusCode.CANCELLED ? 1 : 0;
            StatusException now = process.error();
            r.r3 = (told == null) == (now == null) ? 0 : 1;
        }
    }

    /**
     * Two producers each hand the process one item and call {@link Process#schedule()}; the
     * drain takes what is there and, with fewer than two items seen, reports no work and goes to
     * sleep. A schedule that lands while the worker is going to sleep must not be lost.
     * Result: 1 if the process completed (saw both items), 0 if it slept forever.
     */
    @JCStressTest
    @Description("Process: schedule() races the worker putting the process to sleep")
    @Outcome(id = "1", expect = ACCEPTABLE, desc = "both items consumed, completed")
    @Outcome(id = "0", expect = FORBIDDEN, desc = "lost wake-up: an item is pending and the process sleeps")
    @Outcome(expect = FORBIDDEN, desc = "completion callback ran more than once")
    @State
    public static class ScheduleVsSleep {
        final Probe probe = new Probe();
        final AtomicInteger available = new AtomicInteger();
        int consumed;  // drained by one worker at a time (wake budget 1)
        final Process process = SharedExecutor.get()
                .newProcess("schedule-vs-sleep", (p, w, r) -> {
                    probe.drains.incrementAndGet();
                    consumed += available.getAndSet(0);
                    if (consumed >= 2) {
                        r.complete();
                    }
                })
                .onComplete(probe::onComplete).build();

        @Actor
        public void producer1() {
            available.incrementAndGet();
            process.schedule();
        }

        @Actor
        public void producer2() {
            available.incrementAndGet();
            process.schedule();
        }

        @Arbiter
        public void check(I_Result r) {
            r.r1 = probe.await(process) ? probe.completions.get() : 0;
        }
    }
    /**
     * Result: (completion callbacks of the first dependent, of the second), -1 for a dependent
     * that never completed.
     */
    @JCStressTest
    @Description("Process: two threads add a dependent to the same upstream (first edge by CAS, the loser under the monitor)")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "both edges recorded: both dependents ran once")
    @Outcome(id = {"-1, 1", "1, -1", "-1, -1"}, expect = FORBIDDEN, desc = "an edge was lost: its dependent never activated")
    @Outcome(expect = FORBIDDEN, desc = "a dependent completed more than once")
    @State
    public static class AddDependentVsAddDependent {
        final Probe first = new Probe();
        final Probe second = new Probe();
        final Process upstream = SharedExecutor.get().newProcess("upstream", (p, w, r) -> r.complete()).build();
        final Process d1 = SharedExecutor.get().newProcess("d1", (p, w, r) -> r.complete())
                .onComplete(first::onComplete).build();
        final Process d2 = SharedExecutor.get().newProcess("d2", (p, w, r) -> r.complete())
                .onComplete(second::onComplete).build();

        @Actor
        public void add1() {
            upstream.addDependent(d1);
        }

        @Actor
        public void add2() {
            upstream.addDependent(d2);
        }

        @Arbiter
        public void check(II_Result r) {
            upstream.schedule();
            r.r1 = first.await(d1) ? first.completions.get() : -1;
            r.r2 = second.await(d2) ? second.completions.get() : -1;
        }
    }
    /**
     * Issue 18: the owner of a reusable process re-arms it as soon as its completion callback
     * has run, racing the worker that is still finishing the run (dependents, scope, release):
     * {@link Process#rearm()} is refused until the release, then the second run must behave like
     * the first. Result: (completion callbacks, drains, 1 if the second run succeeded); -1
     * callbacks if a run never completed.
     */
    @JCStressTest
    @Description("Process: re-arm of a reusable process races the end of its previous run")
    @Outcome(id = "2, 2, 1", expect = ACCEPTABLE, desc = "re-armed after the release; ran and completed once more")
    @Outcome(expect = FORBIDDEN, desc = "lost or duplicated run, or a stale error")
    @State
    public static class RearmAfterCompletion {
        final AtomicInteger drains = new AtomicInteger();
        final AtomicInteger completions = new AtomicInteger();
        final CountDownLatch first = new CountDownLatch(1);
        final CountDownLatch second = new CountDownLatch(2);
        volatile StatusException secondError = new StatusException(StatusCode.UNKNOWN, "second run never completed");
        final Process process = SharedExecutor.get()
                .newProcess("rearm", (p, w, r) -> {
                    drains.incrementAndGet();
                    r.complete();
                })
                .reusable()
                .onComplete((p, e) -> {
                    if (completions.incrementAndGet() == 2) {
                        secondError = e;
                    }
                    first.countDown();
                    second.countDown();
                }).build();

        public RearmAfterCompletion() {
            process.schedule();
        }

        @Actor
        public void owner() {
            try {
                if (!first.await(HANG_SECONDS, TimeUnit.SECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG_SECONDS);
            while (System.nanoTime() < deadline) {
                try {
                    process.rearm();
                    process.schedule();
                    return;
                } catch (StatusException e) {
                    Thread.onSpinWait();  // not released yet: the worker is finishing the run
                }
            }
        }

        @Arbiter
        public void check(III_Result r) {
            boolean done;
            try {
                done = second.await(HANG_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                done = false;
            }
            r.r1 = done ? completions.get() : -1;
            r.r2 = drains.get();
            r.r3 = secondError == null ? 1 : 0;
            if (!done) {
                process.cancel();
            }
        }
    }
    /**
     * Issue 18: compute-slot placement races the release of another slot. Scanners visit only the
     * slots the executor's occupancy mask marks, so a release that cleared the bit of a slot after
     * a new placement into it had set it would hide that process from every worker (a hang).
     * Two compute processes (budget 2) are scheduled at once while earlier ones complete and
     * release their slots. Result: (1 if A completed, 1 if B completed).
     */
    @JCStressTest
    @Description("Process: compute-slot placement races another slot's release (occupancy mask)")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "both placed, found and completed")
    @Outcome(expect = FORBIDDEN, desc = "a placed process was never drained (hidden slot)")
    @State
    public static class ComputePlaceVsRelease {
        final Probe a = new Probe();
        final Probe b = new Probe();
        final Process pa = compute("place-a", a);
        final Process pb = compute("place-b", b);

        private static Process compute(String name, Probe probe) {
            return SharedExecutor.get().newProcess(name, (p, w, r) -> {
                probe.drains.incrementAndGet();
                r.complete();
            }).wakeBudget(2).onComplete(probe::onComplete).build();
        }

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
            r.r1 = a.await(pa) ? 1 : 0;
            r.r2 = b.await(pb) ? 1 : 0;
        }
    }
}
