package dev.ortho.vm.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.Deadline;
import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.task.Executor;
import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.Context;
import dev.ortho.vm.Instance;
import dev.ortho.vm.NativeModule;
import dev.ortho.vm.ValueType;
import dev.ortho.vm.VmList;
import dev.ortho.vm.WaitSource;
import dev.ortho.vm.internal.testing.YieldableTestModule;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TaskInvocationTest {
    private static final long HANG_GUARD_SECONDS = 60;

    /** A wait source the test resolves by hand; callbacks run on the resolving thread. */
    static final class Gate implements WaitSource {
        private final CompletableFuture<StatusException> outcome = new CompletableFuture<>();

        void open(StatusException failure) {
            outcome.complete(failure);
        }

        @Override
        public boolean poll() {
            StatusException failure = outcome.getNow(null);
            if (failure != null) {
                throw failure;
            }
            return outcome.isDone();
        }

        @Override
        public void whenReady(Consumer<StatusException> callback) {
            outcome.thenAccept(callback);
        }
    }

    final Executor executor = Executor.builder().workerCount(2).name("task-invocation-test").build();
    final List<Gate> gates = new ArrayList<>();
    final Context context;

    TaskInvocationTest() {
        NativeModule<Void> waiter = NativeModule.<Void>builder("waiter", 1)
                // gate(index) -> index * 10: waits on gate `index`, then returns
                .export("gate", "0i_i", (state, call) -> {
                    int index = call.args().i32(0);
                    if (!call.isResume()) {
                        return call.waitAll(Deadline.infinite(), gates.get(index));
                    }
                    if (call.waitResult() != null) {
                        throw call.waitResult();
                    }
                    call.results().setI32(0, index * 10);
                    return CallOutcome.COMPLETED;
                })
                .build();
        context = Context.create(new Instance(), waiter, YieldableTestModule.create());
    }

    @AfterEach
    void close() {
        context.close();
        executor.close();
    }

    CompletableFuture<Void> start(String function, VmList outputs, int... args) {
        VmList inputs = VmList.ofValues(ValueType.I32, args.length);
        for (int arg : args) {
            inputs.pushI32(arg);
        }
        return TaskInvocation.start(executor, context, context.resolveFunction(function), inputs, outputs);
    }

    @Test
    void waitingInvocationsHoldNoWorkerAndResumeInAnyOrder() throws Exception {
        int n = 10;
        List<CompletableFuture<Void>> futures = new ArrayList<>();
        List<VmList> outputs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            gates.add(new Gate());
        }
        for (int i = 0; i < n; i++) {
            outputs.add(VmList.ofValues(ValueType.I32, 1));
            futures.add(start("waiter.gate", outputs.get(i), i));
        }
        assertTrue(executor.workerCount() < n);
        for (int i = n - 1; i >= 0; i--) {
            for (int j = 0; j < i; j++) {
                assertFalse(futures.get(j).isDone(), "invocation " + j + " resumed before its gate opened");
            }
            gates.get(i).open(null);
            futures.get(i).get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
            assertEquals(i * 10, outputs.get(i).getI32(0));
        }
    }

    @Test
    void plainYieldsAreDrainedAgainUntilTheCallCompletes() throws Exception {
        VmList out = VmList.ofValues(ValueType.I32, 1);
        start("yieldable_test.yield_n", out, 100, 25).get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
        assertEquals(125, out.getI32(0));
    }

    @Test
    void aFailedWaitCompletesTheFutureWithTheStatusAndBacktrace() {
        gates.add(new Gate());
        CompletableFuture<Void> done = start("waiter.gate", VmList.ofValues(ValueType.I32, 1), 0);
        gates.get(0).open(new StatusException(StatusCode.ABORTED, "producer gave up"));
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> done.get(HANG_GUARD_SECONDS, TimeUnit.SECONDS));
        StatusException status = (StatusException) e.getCause();
        assertEquals(StatusCode.ABORTED, status.code());
        assertTrue(status.getMessage().contains("waiter.gate"), status.getMessage());
    }

    @Test
    void shuttingDownTheExecutorCancelsAWaitingInvocation() {
        gates.add(new Gate());
        CompletableFuture<Void> done = start("waiter.gate", VmList.ofValues(ValueType.I32, 1), 0);
        executor.close();
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> done.get(HANG_GUARD_SECONDS, TimeUnit.SECONDS));
        assertEquals(StatusCode.CANCELLED, ((StatusException) e.getCause()).code());
    }
}
