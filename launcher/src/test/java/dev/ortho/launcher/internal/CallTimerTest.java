package dev.ortho.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@link CallTimer} on a fake clock: each call advances it by a chosen cost, so nothing here depends on real time. */
class CallTimerTest {
    private static final long MS = 1_000_000L;

    /** A call whose first invocation costs {@code coldNanos} and every later one {@code warmNanos}. */
    private static final class FakeCall implements Runnable {
        final long coldNanos;
        final long warmNanos;
        long now;
        long calls;

        FakeCall(long coldNanos, long warmNanos) {
            this.coldNanos = coldNanos;
            this.warmNanos = warmNanos;
        }

        @Override
        public void run() {
            now += calls++ == 0 ? coldNanos : warmNanos;
        }
    }

    @Test
    void withoutWarmUpAColdFirstCallLongerThanTheMinimumTimeIsTheReportedRun() {
        FakeCall call = new FakeCall(1300 * MS, 8 * MS);
        CallTimer timer = new CallTimer(call, 1, () -> call.now);
        assertEquals(0, timer.warmUp(0));
        CallTimer.Run run = timer.measure(CallTimer.MinTime.ofSeconds(0.5));
        // Google Benchmark's rule: a run that lasts the minimum time is reported, even a single cold call.
        assertEquals(1, run.iterations());
        assertEquals(1300.0 * MS, run.wallPerIteration());
    }

    @Test
    void warmUpKeepsTheColdCallOutOfTheMeasuredRun() {
        FakeCall call = new FakeCall(1300 * MS, 8 * MS);
        CallTimer timer = new CallTimer(call, 1, () -> call.now);
        long warmUpCalls = timer.warmUp(2.0);
        // The growing warm-up runs end with one lasting at least 2 s: 1 cold call, then 3, then more.
        assertTrue(warmUpCalls * 8 * MS >= 2000 * MS, "warm-up calls " + warmUpCalls);
        assertTrue(call.calls > warmUpCalls, "the earlier, shorter warm-up runs count too: " + call.calls);
        CallTimer.Run run = timer.measure(CallTimer.MinTime.ofSeconds(0.5));
        assertEquals(8.0 * MS, run.wallPerIteration());
        assertTrue(run.wallNanos() >= 500 * MS, "run " + run);
    }

    @Test
    void laterRepetitionsRunTheFirstRepetitionsIterationCount() {
        FakeCall call = new FakeCall(8 * MS, 8 * MS);
        CallTimer timer = new CallTimer(call, 1, () -> call.now);
        CallTimer.Run first = timer.measure(CallTimer.MinTime.ofSeconds(0.5));
        long callsAfterFirst = call.calls;
        CallTimer.Run second = timer.measure(CallTimer.MinTime.ofSeconds(0.5));
        assertEquals(first.iterations(), second.iterations());
        assertEquals(callsAfterFirst + first.iterations(), call.calls, "no growing probe runs in later repetitions");
    }

    @Test
    void anIterationCountRunsExactlyThatManyItemsRoundedUpToWholeBatches() {
        FakeCall call = new FakeCall(1300 * MS, 8 * MS);
        CallTimer timer = new CallTimer(call, 1, () -> call.now);
        CallTimer.Run run = timer.measure(CallTimer.MinTime.ofIterations(1));
        assertEquals(1, run.iterations());
        assertEquals(1300.0 * MS, run.wallPerIteration(), "1x with no warm-up is the cold first call");

        FakeCall batched = new FakeCall(8 * MS, 8 * MS);
        CallTimer byFour = new CallTimer(batched, 4, () -> batched.now);
        CallTimer.Run items = byFour.measure(CallTimer.MinTime.ofIterations(5));
        assertEquals(8, items.iterations());
        assertEquals(2, batched.calls);
        assertEquals(2.0 * MS, items.wallPerIteration());
    }

    @Test
    void batchSizeBelowOneIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new CallTimer(() -> { }, 0));
    }
}
