package dev.ortho.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.Deadline;
import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.internal.testing.YieldableTestModule;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class CoroutineTest {
    private final Instance instance = new Instance();

    /** A wait source resolved by the test; records the callback instead of running a thread. */
    static final class ManualSource implements WaitSource {
        final AtomicReference<Consumer<StatusException>> callback = new AtomicReference<>();

        @Override
        public boolean poll() {
            return false;
        }

        @Override
        public void whenReady(Consumer<StatusException> callback) {
            this.callback.set(callback);
        }
    }

    private static VmList ints(int... values) {
        VmList list = VmList.ofValues(ValueType.I32, values.length);
        for (int v : values) {
            list.pushI32(v);
        }
        return list;
    }

    private Context waiterContext(ManualSource source) {
        NativeModule<Void> waiter = NativeModule.<Void>builder("waiter", 1)
                .export("wait", "0i_i", (state, call) -> {
                    if (!call.isResume()) {
                        return call.waitAll(Deadline.infinite(), source);
                    }
                    if (call.waitResult() != null) {
                        throw call.waitResult();
                    }
                    call.results().setI32(0, call.args().i32(0) + 1);
                    return CallOutcome.COMPLETED;
                })
                .build();
        return Context.create(instance, waiter);
    }

    @Test
    void plainYieldsReportYieldedUntilTheCallCompletes() {
        Context context = Context.create(instance, YieldableTestModule.create());
        VmList out = VmList.ofVariants(1);
        Coroutine c = Coroutine.create(context, context.resolveFunction("yieldable_test.yield_n"), ints(7, 3), out);
        int yields = 0;
        while (c.resume() == Coroutine.Step.YIELDED) {
            yields++;
        }
        assertEquals(3, yields);
        assertTrue(c.isDone());
        assertEquals(10, out.getI32(0));
        assertEquals(StatusCode.FAILED_PRECONDITION, assertThrows(StatusException.class, c::resume).code());
    }

    @Test
    void aWaitReportsWaitingAndResumesOnlyAfterTheSourceReportsReady() {
        ManualSource source = new ManualSource();
        Context context = waiterContext(source);
        VmList out = VmList.ofVariants(1);
        Coroutine c = Coroutine.create(context, context.resolveFunction("waiter.wait"), ints(41), out);
        assertEquals(Coroutine.Step.WAITING, c.resume());
        AtomicInteger woken = new AtomicInteger();
        c.whenReady(woken::incrementAndGet);
        assertEquals(0, woken.get(), "nothing resolved yet");
        source.callback.get().accept(null);
        assertEquals(1, woken.get());
        assertEquals(Coroutine.Step.COMPLETED, c.resume());
        assertEquals(42, out.getI32(0));
    }

    @Test
    void aFailedWaitIsThrownFromResumeWithTheBacktrace() {
        ManualSource source = new ManualSource();
        Context context = waiterContext(source);
        Coroutine c = Coroutine.create(context, context.resolveFunction("waiter.wait"), ints(1), VmList.ofVariants(1));
        assertEquals(Coroutine.Step.WAITING, c.resume());
        c.whenReady(() -> { });
        source.callback.get().accept(new StatusException(StatusCode.ABORTED, "producer failed"));
        StatusException e = assertThrows(StatusException.class, c::resume);
        assertEquals(StatusCode.ABORTED, e.code());
        assertTrue(e.getMessage().contains("waiter.wait"), e.getMessage());
        assertTrue(c.isDone());
    }

    @Test
    void whenReadyOnACoroutineThatIsNotWaitingIsAPreconditionFailure() {
        Context context = Context.create(instance, YieldableTestModule.create());
        Coroutine c = Coroutine.create(context, context.resolveFunction("yieldable_test.yield_n"), ints(0, 1),
                VmList.ofVariants(1));
        assertEquals(StatusCode.FAILED_PRECONDITION,
                assertThrows(StatusException.class, () -> c.whenReady(() -> { })).code());
        assertEquals(Coroutine.Step.YIELDED, c.resume());
        assertEquals(StatusCode.FAILED_PRECONDITION,
                assertThrows(StatusException.class, () -> c.whenReady(() -> { })).code());
        assertFalse(c.isDone());
    }

    @Test
    void abandoningAWaitingCoroutineUnwindsItAndALateWakeUpIsHarmless() {
        ManualSource source = new ManualSource();
        Context context = waiterContext(source);
        Coroutine c = Coroutine.create(context, context.resolveFunction("waiter.wait"), ints(1), VmList.ofVariants(1));
        assertEquals(Coroutine.Step.WAITING, c.resume());
        AtomicInteger woken = new AtomicInteger();
        c.whenReady(woken::incrementAndGet);
        c.abandon();
        assertTrue(c.isDone());
        assertEquals(StatusCode.FAILED_PRECONDITION, assertThrows(StatusException.class, c::resume).code());
        source.callback.get().accept(null);
        assertEquals(1, woken.get());
        c.abandon(); // idempotent
    }

    @Test
    void inputMismatchFailsTheFirstResume() {
        Context context = Context.create(instance, YieldableTestModule.create());
        Coroutine c = Coroutine.create(context, context.resolveFunction("yieldable_test.yield_n"), ints(1),
                VmList.ofVariants(1));
        assertEquals(StatusCode.INVALID_ARGUMENT, assertThrows(StatusException.class, c::resume).code());
        assertTrue(c.isDone());
    }
}
