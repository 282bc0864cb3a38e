package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.Deadline;
import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.Context;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.NativeModule;
import dev.ortho.vm.VmList;
import dev.ortho.vm.WaitSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Issue 18: a synchronous wait ({@link Invocation#invoke} and {@link ModuleTestRunner}, one shared
 * implementation) first lets the waiting thread run the work its sources wait for
 * ({@link WaitSource#help}, what local-task's {@code task_waiter_helps} offers through the hal
 * module's fence waits), then polls and parks as before.
 */
class SyncWaitHelpsTest {
    private static final long FIVE_SECONDS = TimeUnit.SECONDS.toNanos(5);

    /** A source whose {@link #help} runs "the work" on the helping thread: it resolves (or fails) the source. */
    private static final class Helped implements WaitSource {
        private final List<Consumer<StatusException>> callbacks = new ArrayList<>();
        private final StatusException failure;
        private boolean ready;
        volatile Thread helpedOn;
        volatile long helpDeadline;
        volatile int helps;

        Helped(StatusException failure) {
            this.failure = failure;
        }

        synchronized void resolve() {
            ready = true;
            callbacks.forEach(c -> c.accept(failure));
            callbacks.clear();
        }

        @Override
        public synchronized boolean poll() {
            if (ready && failure != null) {
                throw failure;
            }
            return ready;
        }

        @Override
        public synchronized void whenReady(Consumer<StatusException> callback) {
            if (ready) {
                callback.accept(failure);
            } else {
                callbacks.add(callback);
            }
        }

        @Override
        public void help(long deadlineNanos) {
            helps++;
            helpedOn = Thread.currentThread();
            helpDeadline = deadlineNanos;
            resolve(); // a failure fails the source; nothing is thrown into the waiter
        }
    }

    /** Exports {@code all}/{@code any} (result 1 or minus the wait's status code) and {@code checked} (no result). */
    private static Context context(Instance instance, Deadline deadline, Helped... sources) {
        NativeModule<Void> m = NativeModule.<Void>builder("w", 1)
                .export("all", "0_i", (s, call) -> {
                    if (!call.isResume()) {
                        return call.waitAll(deadline, sources);
                    }
                    call.results().setI32(0, call.waitResult() == null ? 1 : -call.waitResult().code().value());
                    return CallOutcome.COMPLETED;
                })
                .export("any", "0_i", (s, call) -> {
                    if (!call.isResume()) {
                        return call.waitAny(deadline, sources);
                    }
                    call.results().setI32(0, call.waitResult() == null ? 1 : -call.waitResult().code().value());
                    return CallOutcome.COMPLETED;
                })
                .export("checked", "0", (s, call) -> {
                    if (!call.isResume()) {
                        return call.waitAll(deadline, sources);
                    }
                    if (call.waitResult() != null) {
                        throw call.waitResult();
                    }
                    return CallOutcome.COMPLETED;
                })
                .build();
        return Context.create(instance, m);
    }

    private static int invoke(Context context, String name) {
        VmList out = VmList.ofVariants(1);
        Invocation.invoke(context, context.resolveFunction(name), null, out);
        return out.getI32(0);
    }

    @Test
    void invocationsWaitingThreadRunsTheWorkOfEverySourceWithTheFramesDeadline() {
        Helped a = new Helped(null);
        Helped b = new Helped(null);
        Deadline deadline = Deadline.afterNanos(FIVE_SECONDS);
        Context context = context(new Instance(), deadline, a, b);
        // Before: nobody resolved the sources and the wait ran into its deadline.
        assertEquals(1, invoke(context, "w.all"));
        assertSame(Thread.currentThread(), a.helpedOn);
        assertSame(Thread.currentThread(), b.helpedOn);
        assertEquals(deadline.nanos(), a.helpDeadline);
    }

    @Test
    void anAnyWaitStopsHelpingOnceOneSourceIsReady() {
        Helped a = new Helped(null);
        Helped b = new Helped(null);
        Context context = context(new Instance(), Deadline.afterNanos(FIVE_SECONDS), a, b);
        assertEquals(1, invoke(context, "w.any"));
        assertEquals(1, a.helps);
        assertEquals(0, b.helps, "the wait was over after the first source");
    }

    @Test
    void workThatFailsFailsTheWaitWithItsStatusAndStopsHelping() {
        Helped failing = new Helped(new StatusException(StatusCode.DATA_LOSS, "kernel failed"));
        Helped other = new Helped(null);
        Context context = context(new Instance(), Deadline.afterNanos(FIVE_SECONDS), failing, other);
        assertEquals(-StatusCode.DATA_LOSS.value(), invoke(context, "w.all"));
        assertEquals(1, failing.helps);
        assertEquals(0, other.helps, "a failed wait needs nothing more");
    }

    @Test
    void anExpiredWaitRunsNothing() {
        Helped a = new Helped(null);
        Context context = context(new Instance(), Deadline.immediate(), a);
        assertEquals(-StatusCode.DEADLINE_EXCEEDED.value(), invoke(context, "w.all"));
        assertEquals(0, a.helps);
    }

    @Test
    void moduleTestRunnerWaitsTheSameWay() {
        Helped a = new Helped(null);
        Context context = context(new Instance(), Deadline.afterNanos(FIVE_SECONDS), a);
        // Before: ModuleTestRunner had its own polling wait, which never helped.
        assertNull(ModuleTestRunner.invoke(context, context.resolveFunction("w.checked"), new int[1]));
        assertSame(Thread.currentThread(), a.helpedOn);

        Helped failing = new Helped(new StatusException(StatusCode.ABORTED, "work aborted"));
        Context failed = context(new Instance(), Deadline.afterNanos(FIVE_SECONDS), failing);
        StatusException e = ModuleTestRunner.invoke(failed, failed.resolveFunction("w.checked"), new int[1]);
        assertNotNull(e);
        assertEquals(StatusCode.ABORTED, e.code(), e.getMessage());
        assertTrue(e.getMessage().contains("work aborted"), e.getMessage());
    }
}
