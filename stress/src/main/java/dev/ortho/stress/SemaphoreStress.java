package dev.ortho.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.Timepoint;
import dev.ortho.hal.TimepointCallback;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The timeline semaphore that every CPU driver queue uses ({@link TimelineSemaphore}): its
 * lock-free signal path against timepoint registration (the Dekker pair of {@code value} and
 * {@code pending}), failure and cancellation. Timepoint callbacks run synchronously on the
 * signalling or registering thread, so the arbiter sees every call.
 */
public final class SemaphoreStress {
    private SemaphoreStress() {
    }

    /** Counts calls and remembers whether any carried a failure status. */
    static final class Counting implements TimepointCallback {
        final AtomicInteger calls = new AtomicInteger();
        volatile StatusException status;

        @Override
        public void onTimepoint(Semaphore semaphore, long value, StatusException failure) {
            if (failure != null) {
                status = failure;
            }
            calls.incrementAndGet();
        }
    }

    /** Result: (callback calls, 1 if a call carried a failure). */
    @JCStressTest
    @Description("TimelineSemaphore: signal(1) races addTimepoint(1)")
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the timepoint fired once, successfully")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "lost wake-up: value reached, callback never ran")
    @Outcome(id = "2, 0", expect = FORBIDDEN, desc = "callback ran twice (both the signal and the registration dispatched it)")
    @Outcome(expect = FORBIDDEN, desc = "spurious failure or other call count")
    @State
    public static class SignalVsTimepoint {
        final TimelineSemaphore semaphore = new TimelineSemaphore("jcstress", 0, 0, 0);
        final Counting callback = new Counting();

        @Actor
        public void signaller() {
            semaphore.signal(1);
        }

        @Actor
        public void registrar() {
            semaphore.addTimepoint(1, callback);
        }

        @Arbiter
        public void check(II_Result r) {
            r.r1 = callback.calls.get();
            r.r2 = callback.status == null ? 0 : 1;
        }
    }

    /** Same race with frontier tracking on (the signal then records under the frontier lock). */
    @JCStressTest
    @Description("TimelineSemaphore with frontiers: signal(1) races addTimepoint(1)")
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the timepoint fired once, successfully")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "lost wake-up: value reached, callback never ran")
    @Outcome(id = "2, 0", expect = FORBIDDEN, desc = "callback ran twice")
    @Outcome(expect = FORBIDDEN, desc = "spurious failure or other call count")
    @State
    public static class SignalVsTimepointWithFrontiers {
        final TimelineSemaphore semaphore = new TimelineSemaphore("jcstress", 0);
        final Counting callback = new Counting();

        @Actor
        public void signaller() {
            semaphore.signal(1);
        }

        @Actor
        public void registrar() {
            semaphore.addTimepoint(1, callback);
        }

        @Arbiter
        public void check(II_Result r) {
            r.r1 = callback.calls.get();
            r.r2 = callback.status == null ? 0 : 1;
        }
    }

    /** Result: (callback calls, 1 if the call carried the failure). */
    @JCStressTest
    @Description("TimelineSemaphore: fail() races addTimepoint(1)")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the timepoint fired once, with the failure")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "lost failure: the waiter is never told")
    @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "the timepoint fired as if the value had been reached")
    @Outcome(id = "2, 1", expect = FORBIDDEN, desc = "callback ran twice")
    @Outcome(expect = FORBIDDEN, desc = "other call count")
    @State
    public static class FailVsTimepoint {
        final TimelineSemaphore semaphore = new TimelineSemaphore("jcstress", 0, 0, 0);
        final Counting callback = new Counting();

        @Actor
        public void failer() {
            semaphore.fail(new StatusException(StatusCode.ABORTED, "jcstress"));
        }

        @Actor
        public void registrar() {
            semaphore.addTimepoint(1, callback);
        }

        @Arbiter
        public void check(II_Result r) {
            r.r1 = callback.calls.get();
            r.r2 = callback.status != null && callback.status.code() == StatusCode.ABORTED ? 1 : 0;
        }
    }

    /** Result: (callback calls, 1 if cancel() returned true). */
    @JCStressTest
    @Description("TimelineSemaphore: signal(1) races Timepoint.cancel()")
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "signal won: callback ran, cancel too late")
    @Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "cancel won: callback never runs")
    @Outcome(id = "1, 1", expect = FORBIDDEN, desc = "callback ran although cancel() reported success")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "lost wake-up: neither ran nor cancelled")
    @Outcome(expect = FORBIDDEN, desc = "callback ran twice")
    @State
    public static class SignalVsCancel {
        final TimelineSemaphore semaphore = new TimelineSemaphore("jcstress", 0, 0, 0);
        final Counting callback = new Counting();
        final Timepoint timepoint = semaphore.addTimepoint(1, callback);

        @Actor
        public void signaller() {
            semaphore.signal(1);
        }

        @Actor
        public void canceller(II_Result r) {
            r.r2 = timepoint.cancel() ? 1 : 0;
        }

        @Arbiter
        public void check(II_Result r) {
            r.r1 = callback.calls.get();
        }
    }
}
