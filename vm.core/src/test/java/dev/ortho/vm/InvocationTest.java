package dev.ortho.vm;

import static dev.ortho.vm.Assertions2.assertStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.Deadline;
import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.internal.testing.YieldableTestModule;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class InvocationTest {
    private final Instance instance = new Instance();
    private final ExecutorService executor = Executors.newSingleThreadExecutor();

    @AfterEach
    void shutdown() {
        executor.shutdownNow();
    }

    private static VmList ints(int... values) {
        VmList list = VmList.ofValues(ValueType.I32, values.length);
        for (int v : values) {
            list.pushI32(v);
        }
        return list;
    }

    @Test
    void yieldNResumesSynchronously() {
        Context context = Context.create(instance, YieldableTestModule.create());
        VmList out = VmList.ofVariants(1);
        Invocation.invoke(context, context.resolveFunction("yieldable_test.yield_n"), ints(10, 5), out);
        assertEquals(15, out.getI32(0));
        assertEquals(ValueType.I32, out.getVariant(0).valueType());
    }

    @Test
    void yieldNResumesThroughTheAsyncPath() throws Exception {
        Context context = Context.create(instance, YieldableTestModule.create());
        VmList out = VmList.ofVariants(1);
        CompletableFuture<Void> done = Invocation.invokeAsync(context,
                context.resolveFunction("yieldable_test.yield_n"), ints(100, 1000), out, executor);
        done.get(10, TimeUnit.SECONDS);
        assertEquals(1100, out.getI32(0));
    }

    @Test
    void variadicSumYieldsWhenCalledAcrossModules() throws Exception {
        NativeModule<Void> caller = NativeModule.<Void>builder("caller", 1)
                .importFunction("yieldable_test.yield_variadic_sum", "0CiDi_i", false)
                .export("sum3", "0_i", (s, call) -> {
                    Call inner = call.prepareImport(0);
                    inner.arguments().reset(1 + 3 + 1, 0);
                    inner.arguments().setI32(0, 3);
                    inner.arguments().setI32(1, 1);
                    inner.arguments().setI32(2, 2);
                    inner.arguments().setI32(3, 3);
                    inner.arguments().setI32(4, 4);
                    call.invoke(inner);
                    call.results().setI32(0, inner.results().i32(0));
                    return CallOutcome.COMPLETED;
                })
                .build();
        Context context = Context.create(instance, YieldableTestModule.create(), caller);
        VmList out = VmList.ofVariants(1);
        Invocation.invokeAsync(context, context.resolveFunction("caller.sum3"), null, out, executor)
                .get(10, TimeUnit.SECONDS);
        assertEquals(1 + 2 + 3 + 4, out.getI32(0));
    }

    @Test
    void inputsAndOutputsAreMarshalledWithIreeRules() {
        TestRef a = TestRef.a(1);
        NativeModule<Void> m = NativeModule.<Void>builder("m", 1)
                .export("mix", "0IfFr_rIi", (s, call) -> {
                    CallBuffer args = call.args();
                    call.results().setRef(0, RefObject.retain(args.ref(0)));
                    call.results().setI64(0, args.i64(0) + 1);
                    call.results().setI32(1, (int) (args.f32(1) + args.f64(2)));
                    return CallOutcome.COMPLETED;
                })
                .build();
        Context context = Context.create(instance, m);
        VmList in = VmList.ofVariants(4);
        in.pushI32(41);
        in.pushF32(1.5f);
        in.pushF64(2.5);
        in.pushRefRetain(a);
        VmList out = VmList.ofVariants(0);
        out.pushI32(99);
        Invocation.invoke(context, context.resolveFunction("m.mix"), in, out);
        assertEquals(3, out.size());
        assertSame(a, out.getRef(0));
        assertEquals(42L, out.getI64(1));
        assertEquals(ValueType.I64, out.getVariant(1).valueType());
        assertEquals(4, out.getI32(2));
        assertEquals(3, a.refCount(), "creator + input list + output list");
    }

    @Test
    void sequentialHostInvokesReuseTheContextsStackAndNestedOnesGetTheirOwn() {
        List<Stack> seen = new ArrayList<>();
        Context[] ctx = new Context[1];
        NativeModule<Void> m = NativeModule.<Void>builder("m", 1)
                .export("leaf", "0_v", (s, call) -> {
                    seen.add(call.stack());
                    return CallOutcome.COMPLETED;
                })
                .export("nest", "0_v", (s, call) -> {
                    seen.add(call.stack());
                    Invocation.invoke(ctx[0], ctx[0].resolveFunction("m.leaf"), null, null);  // host call from a host call
                    return CallOutcome.COMPLETED;
                })
                .build();
        Context context = Context.create(instance, m);
        ctx[0] = context;
        Function leaf = context.resolveFunction("m.leaf");
        Invocation.invoke(context, leaf, null, null);
        Invocation.invoke(context, leaf, null, null);
        assertSame(seen.get(0), seen.get(1), "the second invocation reuses the first one's stack");
        Invocation.invoke(context, context.resolveFunction("m.nest"), null, null);
        assertSame(seen.get(0), seen.get(2), "the outer invocation took the spare stack");
        assertTrue(seen.get(3) != seen.get(2), "a nested invocation must not share the running stack");
        Invocation.invoke(context, leaf, null, null);
        assertTrue(seen.get(4) == seen.get(2) || seen.get(4) == seen.get(3), "an empty stack went back to the context");
        assertEquals(0, seen.get(4).depth());
    }

    /**
     * A native frame's i32 registers are not zeroed when it is entered (a fixed cost of every
     * import call, and most exports never use locals); {@link NativeCall#locals()} zeroes them on
     * an activation's first use. So the locals are zero on a first activation even when the
     * pooled frame held another activation's values, and kept across a yield.
     */
    @Test
    void nativeLocalsAreZeroOnAFirstActivationAndKeptAcrossAYield() {
        NativeModule<Void> m = NativeModule.<Void>builder("m", 1)
                .export("scribble", "0v_v", (s, call) -> {
                    java.util.Arrays.fill(call.locals(), 7);
                    return CallOutcome.COMPLETED;
                })
                .export("sum", "0v_i", (s, call) -> {
                    int[] locals = call.locals();
                    if (!call.isResume()) {
                        int sum = 0;
                        for (int i = 0; i < NativeCall.LOCAL_I32_COUNT; i++) {
                            sum += locals[i];
                        }
                        locals[0] = 100 + sum;
                        return call.yieldNow();
                    }
                    call.results().setI32(0, locals[0]);
                    return CallOutcome.COMPLETED;
                })
                .build();
        Context context = Context.create(instance, m);
        VmList out = VmList.ofVariants(1);
        for (int round = 0; round < 3; round++) {
            Invocation.invoke(context, context.resolveFunction("m.scribble"), null, null);
            Invocation.invoke(context, context.resolveFunction("m.sum"), null, out);
            assertEquals(100, out.getI32(0), "round " + round);
        }
    }

    @Test
    void steadyStateHostInvokeAllocatesNothing() {
        NativeModule<Void> m = NativeModule.<Void>builder("m", 1)
                .export("add", "0ii_i", (s, call) -> {
                    call.results().setI32(0, call.args().i32(0) + call.args().i32(1));
                    return CallOutcome.COMPLETED;
                })
                .build();
        Context context = Context.create(instance, m);
        Function add = context.resolveFunction("m.add");
        VmList in = VmList.ofValues(ValueType.I32, 2);
        VmList out = VmList.ofValues(ValueType.I32, 1);
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long self = Thread.currentThread().threadId();
        int calls = 20_000;
        long best = Long.MAX_VALUE;
        int sum = 0;
        for (int round = 0; round < 6; round++) {
            long before = threads.getThreadAllocatedBytes(self);
            for (int i = 0; i < calls; i++) {
                in.resize(0);
                in.pushI32(i);
                in.pushI32(1);
                Invocation.invoke(context, add, in, out);
                sum += out.getI32(0) - i;
            }
            best = Math.min(best, threads.getThreadAllocatedBytes(self) - before);
        }
        assertEquals(6 * calls, sum);
        // A fresh stack per call costs ~700 B; reuse leaves only the measuring noise.
        assertTrue(best < 16L * calls, "host invoke allocated " + best / (double) calls + " B per call");
    }

    @Test
    void inputMismatchesAreInvalidArgument() {
        Context context = Context.create(instance, YieldableTestModule.create());
        Function f = context.resolveFunction("yieldable_test.yield_n");
        var e = assertStatus(StatusCode.INVALID_ARGUMENT, () -> Invocation.invoke(context, f, ints(1), null));
        assertEquals("input list and function mismatch; expected 2 arguments but passed 1", e.baseMessage());
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> Invocation.invoke(context, f, null, null));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> Invocation.invoke(context, f, ints(1, 2), null));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> Invocation.invoke(context,
                context.resolveFunction("yieldable_test.yield_variadic_sum"), ints(1, 2), null));
        VmList refs = VmList.ofRefs(RefType.ANY, 2);
        refs.resize(2);
        assertStatus(StatusCode.FAILED_PRECONDITION, () -> Invocation.invoke(context, f, refs, VmList.ofVariants(1)));
    }

    @Test
    void failuresCarryABacktraceAndUnwindReleasesRefs() {
        TestRef held = TestRef.a(1);
        NativeModule<Void> inner = NativeModule.<Void>builder("inner", 1)
                .export("boom", "0i_i", (s, call) -> {
                    call.refLocals()[0] = RefObject.retain(held);
                    throw new StatusException(StatusCode.ABORTED, "boom " + call.args().i32(0));
                })
                .build();
        NativeModule<Void> outer = NativeModule.<Void>builder("outer", 1)
                .importFunction("inner.boom", "0i_i", false)
                .export("run", "0_i", (s, call) -> {
                    Call c = call.prepareImport(0);
                    c.arguments().setI32(0, 7);
                    call.invoke(c);
                    return CallOutcome.COMPLETED;
                })
                .build();
        Context context = Context.create(instance, inner, outer);
        var e = assertStatus(StatusCode.ABORTED,
                () -> Invocation.invoke(context, context.resolveFunction("outer.run"), null, VmList.ofVariants(1)));
        assertEquals("boom 7", e.baseMessage());
        String trace = e.annotations().get(0);
        assertTrue(trace.contains("[ 2]   native inner.boom:0 -"), trace);
        assertTrue(trace.contains("[ 1]   native outer.run:0 -"), trace);
        assertTrue(trace.contains("[ 0] external"), trace);
        assertEquals(1, held.refCount(), "the ref held by the failed frame was released on unwind");
    }

    @Test
    void stackGrowthPastOneMebibyteIsResourceExhausted() {
        Stack stack = new Stack(Context.create(instance));
        int frames = 0;
        StatusException e = null;
        try {
            while (frames < 10_000) {
                stack.enter(FrameType.BYTECODE, null, 1000, 100, null);
                frames++;
            }
        } catch (StatusException thrown) {
            e = thrown;
        }
        assertEquals(StatusCode.RESOURCE_EXHAUSTED, e.code());
        assertTrue(e.baseMessage().startsWith("new stack size would exceed maximum size"), e.baseMessage());
        assertEquals(Stack.MAX_SIZE_BYTES / (64 + 4000 + 800), frames);
        stack.unwind();
        stack.enter(FrameType.BYTECODE, null, 1000, 100, null);
    }

    @Test
    void backtracesOfShallowStacksPrintEveryFrame() {
        Stack stack = new Stack(Context.create(instance));
        int frames = Stack.BACKTRACE_TOP_FRAMES + Stack.BACKTRACE_BOTTOM_FRAMES + 1;
        for (int i = 0; i < frames; i++) {
            stack.enter(FrameType.BYTECODE, null, 1, 0, null);
        }
        String trace = stack.formatBacktrace();
        assertEquals(frames, trace.strip().split("\\R").length, trace);
        assertTrue(!trace.contains("elided"), trace);
        stack.enter(FrameType.BYTECODE, null, 1, 0, null);
        String deeper = stack.formatBacktrace();
        assertTrue(deeper.contains(String.format("%n[..] ... 2 frames elided ...%n[15] bytecode ")), deeper);
        assertTrue(deeper.contains(String.format("[18] bytecode %n[..]")), deeper);
        stack.unwind();
    }

    /** A wait source completed by the test. */
    private static final class Latch implements WaitSource {
        private final List<Consumer<StatusException>> callbacks = new ArrayList<>();
        private boolean ready;
        private StatusException failure;

        synchronized void signal(StatusException failure) {
            ready = true;
            this.failure = failure;
            callbacks.forEach(c -> c.accept(failure));
            callbacks.clear();
        }

        @Override
        public synchronized boolean poll() {
            if (failure != null) {
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
    }

    private static NativeModule<Latch[]> waiter(Latch... latches) {
        return NativeModule.<Latch[]>builder("waiter", 1)
                .state(ctx -> latches, null, null)
                .export("all", "0_i", (ls, call) -> {
                    if (!call.isResume()) {
                        return call.waitAll(Deadline.afterNanos(TimeUnit.SECONDS.toNanos(5)), ls);
                    }
                    call.results().setI32(0, call.waitResult() == null ? 1 : -call.waitResult().code().value());
                    return CallOutcome.COMPLETED;
                })
                .export("any_short", "0_i", (ls, call) -> {
                    if (!call.isResume()) {
                        return call.waitAny(Deadline.afterNanos(TimeUnit.MILLISECONDS.toNanos(20)), ls);
                    }
                    call.results().setI32(0, call.waitResult() == null ? 1 : -call.waitResult().code().value());
                    return CallOutcome.COMPLETED;
                })
                .export("sleep", "0_i", (ls, call) -> {
                    if (!call.isResume()) {
                        return call.waitUntil(Deadline.afterNanos(TimeUnit.MILLISECONDS.toNanos(5)));
                    }
                    call.results().setI32(0, 1);
                    return CallOutcome.COMPLETED;
                })
                .build();
    }

    @Test
    void asyncWaitAllResumesWhenEverySourceIsReady() throws Exception {
        Latch a = new Latch();
        Latch b = new Latch();
        Context context = Context.create(instance, waiter(a, b));
        VmList out = VmList.ofVariants(1);
        CompletableFuture<Void> done = Invocation.invokeAsync(context, context.resolveFunction("waiter.all"), null,
                out, executor);
        a.signal(null);
        Thread.sleep(20);
        assertTrue(!done.isDone(), "one of two sources is not enough");
        b.signal(null);
        done.get(5, TimeUnit.SECONDS);
        assertEquals(1, out.getI32(0));
    }

    @Test
    void failedWaitSourceIsReportedToTheWaiter() throws Exception {
        Latch a = new Latch();
        Context context = Context.create(instance, waiter(a));
        VmList out = VmList.ofVariants(1);
        CompletableFuture<Void> done = Invocation.invokeAsync(context, context.resolveFunction("waiter.all"), null,
                out, executor);
        a.signal(new StatusException(StatusCode.CANCELLED, "semaphore failed"));
        done.get(5, TimeUnit.SECONDS);
        assertEquals(-StatusCode.CANCELLED.value(), out.getI32(0));
    }

    @Test
    void syncWaitTimesOutWithDeadlineExceeded() {
        Latch never = new Latch();
        Context context = Context.create(instance, waiter(never));
        VmList out = VmList.ofVariants(1);
        Invocation.invoke(context, context.resolveFunction("waiter.any_short"), null, out);
        assertEquals(-StatusCode.DEADLINE_EXCEEDED.value(), out.getI32(0));
        Invocation.invoke(context, context.resolveFunction("waiter.sleep"), null, out);
        assertEquals(1, out.getI32(0));
    }

    @Test
    void syncWaitOnReadySourceCompletes() {
        Latch a = new Latch();
        a.signal(null);
        Context context = Context.create(instance, waiter(a));
        VmList out = VmList.ofVariants(1);
        Invocation.invoke(context, context.resolveFunction("waiter.all"), null, out);
        assertEquals(1, out.getI32(0));
    }

    @Test
    void asyncFailureCompletesExceptionally() {
        NativeModule<Void> m = NativeModule.<Void>builder("m", 1)
                .export("fail", "0", (s, call) -> {
                    throw new StatusException(StatusCode.DATA_LOSS, "gone");
                })
                .build();
        Context context = Context.create(instance, m);
        var f = Invocation.invokeAsync(context, context.resolveFunction("m.fail"), null, null, executor);
        var e = assertThrows(ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
        assertInstanceOf(StatusException.class, e.getCause());
        assertEquals(StatusCode.DATA_LOSS, ((StatusException) e.getCause()).code());
    }

    @Test
    void stackRejectsUnbalancedLeaves() {
        Context context = Context.create(instance);
        Stack stack = new Stack(context);
        Frame a = stack.enter(FrameType.EXTERNAL, null, 0, 0, null);
        stack.enter(FrameType.EXTERNAL, null, 2, 1, null);
        assertStatus(StatusCode.FAILED_PRECONDITION, () -> stack.leave(a));
        assertStatus(StatusCode.FAILED_PRECONDITION, stack::leaveWait);
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> stack.enterWait(WaitType.ANY, Deadline.infinite()));
        assertEquals(2, stack.depth());
        stack.unwind();
        assertEquals(0, stack.depth());
    }
}
