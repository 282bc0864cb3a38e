package dev.ortho.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.BufferView;
import dev.ortho.hal.Fence;
import dev.ortho.hal.Semaphore;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.task.Executor;
import dev.ortho.vm.VmList;
import dev.ortho.vm.task.TaskInvocation;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class PipelinedExampleTest {
    private static final long HANG_GUARD_SECONDS = 60;

    static float[] cube(float[] x) {
        float[] y = new float[x.length];
        for (int i = 0; i < x.length; i++) {
            y[i] = (x[i] * x[i]) * x[i];
        }
        return y;
    }

    static float[] result(VmList outputs) {
        try {
            BufferView view = HalRefs.bufferView(outputs.getRef(0));
            assertArrayEquals(new long[] {4}, view.shape());
            return ExampleHarness.floats(view);
        } finally {
            outputs.release();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.ortho.examples.ExampleHarness#devices")
    void synchronousWrapperCubesLikePlainJava(ExampleHarness.Target device) {
        float[] x = {1.5f, -2f, 0.25f, 3f};
        try (ExampleHarness h = new ExampleHarness("pipelined", device);
             BufferView input = h.f32View(new long[] {4}, x)) {
            assertArrayEquals(cube(x), result(h.call("pipelined.cube", input)));
        }
    }

    @ParameterizedTest
    @MethodSource("dev.ortho.examples.ExampleHarness#devices")
    void coarseFencesFunctionSignalsTheCallersFenceWhenTheResultIsReady(ExampleHarness.Target device) {
        float[] x = {-1f, 2f, 0.5f, 10f};
        try (ExampleHarness h = new ExampleHarness("pipelined", device);
             BufferView input = h.f32View(new long[] {4}, x);
             Semaphore timeline = h.device.createSemaphore(0);
             Fence wait = Fence.at(timeline, 1);
             Fence signal = Fence.at(timeline, 2)) {
            timeline.signal(1); // local-sync waits inline in queue calls: reach the wait fence first
            VmList out = h.call("pipelined.cube$async", input, wait, signal);
            timeline.await(2, Timeout.infinite());
            assertArrayEquals(cube(x), result(out));
        }
    }

    /**
     * On an asynchronous device the coarse-fences function only schedules: it returns the result
     * view before its wait fence is reached, and the whole chain (alloca, two executes, dealloca)
     * runs in fence order once the caller reaches it.
     */
    @ParameterizedTest
    @ValueSource(strings = {"local-task://", "validation+local-task://"})
    void onLocalTaskTheCoarseFencesCallReturnsBeforeItsWaitFenceIsReached(String device) {
        float[] x = {3f, -0.5f, 1.25f, 4f};
        try (ExampleHarness h = new ExampleHarness("pipelined", device);
             BufferView input = h.f32View(new long[] {4}, x);
             Semaphore timeline = h.device.createSemaphore(0);
             Fence wait = Fence.at(timeline, 1);
             Fence signal = Fence.at(timeline, 2)) {
            VmList out = h.call("pipelined.cube$async", input, wait, signal);
            assertEquals(0, timeline.query(), "nothing ran before the wait fence");
            timeline.signal(1);
            timeline.await(2, Timeout.infinite());
            assertArrayEquals(cube(x), result(out));
        }
    }

    @Test
    void aFailedWaitFenceFailsTheInvocationWithItsStatus() {
        try (ExampleHarness h = new ExampleHarness("pipelined", "local-sync://");
             BufferView input = h.f32View(new long[] {4}, new float[4]);
             Semaphore timeline = h.device.createSemaphore(0);
             Fence wait = Fence.at(timeline, 1)) {
            timeline.fail(new StatusException(StatusCode.ABORTED, "upstream stage aborted"));
            StatusException e = assertThrows(StatusException.class, () -> h.call("pipelined.cube_when_ready", input, wait));
            assertEquals(StatusCode.ABORTED, e.code(), e.getMessage());
        }
    }

    /**
     * N invocations that each wait on their own fence run as coroutine processes of an executor
     * with fewer workers than invocations. Released in reverse order, each completes while all
     * earlier-started ones still wait: a waiting invocation holds no worker, so none can be
     * starved (with blocking waits, two waiters would occupy both workers and the rest would
     * never start).
     */
    @ParameterizedTest
    @MethodSource("dev.ortho.examples.ExampleHarness#devices")
    void concurrentPipelinedInvocationsShareFewerWorkersWithoutBlocking(ExampleHarness.Target device) throws Exception {
        int invocations = 8;
        try (Executor executor = Executor.builder().workerCount(2).name("examples").build();
             ExampleHarness h = new ExampleHarness("pipelined", device)) {
            assertTrue(executor.workerCount() < invocations);
            List<Semaphore> gates = new ArrayList<>();
            List<BufferView> inputs = new ArrayList<>();
            List<VmList> argLists = new ArrayList<>();
            List<VmList> outLists = new ArrayList<>();
            List<CompletableFuture<Void>> futures = new ArrayList<>();
            try {
                for (int i = 0; i < invocations; i++) {
                    Semaphore gate = h.device.createSemaphore(0);
                    gates.add(gate);
                    BufferView input = h.f32View(new long[] {4}, new float[] {i, i + 0.5f, -i, 2});
                    inputs.add(input);
                    try (Fence wait = Fence.at(gate, 1)) {
                        argLists.add(ExampleHarness.inputs(input, wait));
                    }
                    outLists.add(VmList.ofVariants(1));
                    futures.add(TaskInvocation.start(executor, h.context,
                            h.context.resolveFunction("pipelined.cube_when_ready"), argLists.get(i), outLists.get(i)));
                }
                for (int i = invocations - 1; i >= 0; i--) {
                    for (int j = 0; j < i; j++) {
                        if (futures.get(j).isDone()) {
                            futures.get(j).get(); // surfaces the failure
                        }
                        assertFalse(futures.get(j).isDone(), "invocation " + j + " finished before its fence");
                    }
                    gates.get(i).signal(1);
                    futures.get(i).get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
                    float[] x = {i, i + 0.5f, -i, 2};
                    assertArrayEquals(cube(x), result(outLists.get(i)), "invocation " + i);
                }
            } finally {
                argLists.forEach(VmList::release);
                inputs.forEach(BufferView::release);
                gates.forEach(Semaphore::release);
            }
        }
    }

    @Test
    void aFailingCoroutineProcessCompletesItsFutureWithTheStatus() throws Exception {
        try (Executor executor = Executor.builder().workerCount(1).name("examples").build();
             ExampleHarness h = new ExampleHarness("pipelined", "local-sync://");
             BufferView wrongShape = h.f32View(new long[] {3}, new float[3])) {
            VmList args = ExampleHarness.inputs(wrongShape);
            try {
                CompletableFuture<Void> done = TaskInvocation.start(executor, h.context,
                        h.context.resolveFunction("pipelined.cube"), args, VmList.ofVariants(1));
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> done.get(HANG_GUARD_SECONDS, TimeUnit.SECONDS));
                StatusException status = (StatusException) e.getCause();
                assertEquals(StatusCode.INVALID_ARGUMENT, status.code());
                assertTrue(status.getMessage().contains("pipelined.cube"), "backtrace: " + status.getMessage());
            } finally {
                args.release();
            }
        }
    }
}
