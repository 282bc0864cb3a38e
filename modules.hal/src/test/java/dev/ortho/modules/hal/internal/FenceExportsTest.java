package dev.ortho.modules.hal.internal;

import static dev.ortho.modules.hal.internal.Harness.p;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Fence;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.vm.RefObject;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FenceExportsTest {
    static final long INFINITE = -1;

    Harness h;
    RefObject device;

    /** An executor whose tasks the test thread runs by hand, so it sees exactly when an invocation yields. */
    static final class ManualExecutor implements Executor {
        final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();

        @Override
        public void execute(Runnable task) {
            tasks.add(task);
        }

        /** Runs tasks until none is queued; returns how many ran. */
        int drain() {
            int ran = 0;
            for (Runnable task; (task = tasks.poll()) != null; ran++) {
                task.run();
            }
            return ran;
        }
    }

    @BeforeEach
    void setUp() {
        h = new Harness();
        device = h.call("devices.get", p(0)).takeRef(0);
    }

    @AfterEach
    void tearDown() {
        device.release();
        h.close();
    }

    RefObject fence() {
        return h.call("fence.create", p(0), device).takeRef(0);
    }

    int query(RefObject fence) {
        try (Harness.Results r = h.call("fence.query", p(), fence)) {
            return r.i32(0);
        }
    }

    static void onOtherThread(Runnable action) throws InterruptedException {
        Thread thread = new Thread(action, "signaller");
        thread.start();
        thread.join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(thread.isAlive(), "signaller hung");
    }

    @Test
    void createMakesAFenceReachedWhenSignalled() {
        RefObject fence = fence();
        try {
            Fence hal = HalRefs.fence(fence);
            assertEquals(1, hal.timepointCount());
            assertEquals(StatusCode.DEFERRED.value(), query(fence));
            h.run("fence.signal", p(), fence);
            assertEquals(StatusCode.OK.value(), query(fence));
            h.fails(StatusCode.INVALID_ARGUMENT, "fence.signal", p(), fence); // the semaphore is already at 1
            h.fails(StatusCode.INVALID_ARGUMENT, "fence.create", p(0), fence);
            h.fails(StatusCode.INVALID_ARGUMENT, "fence.query", p(), device);
            h.fails(StatusCode.INVALID_ARGUMENT, "fence.signal", p(), (RefObject) null);
        } finally {
            fence.release();
        }
    }

    @Test
    void failMasksTheStatusCodeAndQueryReportsIt() {
        RefObject aborted = fence();
        RefObject masked = fence();
        RefObject ok = fence();
        try {
            h.run("fence.fail", p(StatusCode.ABORTED.value()), aborted);
            assertEquals(StatusCode.ABORTED.value(), query(aborted));
            h.run("fence.fail", p(0x20 | StatusCode.DATA_LOSS.value()), masked);
            assertEquals(StatusCode.DATA_LOSS.value(), query(masked));
            h.run("fence.fail", p(0), ok);
            assertEquals(StatusCode.UNKNOWN.value(), query(ok), "a failure cannot be OK");
            h.fails(StatusCode.INVALID_ARGUMENT, "fence.fail", p(1), device);
        } finally {
            aborted.release();
            masked.release();
            ok.release();
        }
    }

    @Test
    void joinIsReachedWhenEveryFenceIsAndSkipsNulls() {
        RefObject a = fence();
        RefObject b = fence();
        try (Harness.Results joined = h.call("fence.join", p(0, 3), a, null, b);
                Harness.Results empty = h.call("fence.join", p(0, 2), null, null);
                Harness.Results none = h.call("fence.join", p(0, 0))) {
            RefObject j = joined.ref(0);
            assertEquals(2, HalRefs.fence(j).timepointCount());
            h.run("fence.signal", p(), a);
            assertEquals(StatusCode.DEFERRED.value(), query(j));
            h.run("fence.signal", p(), b);
            assertEquals(StatusCode.OK.value(), query(j));
            assertNull(empty.ref(0), "no timepoints: an immediately reached (null) fence");
            assertNull(none.ref(0));
            h.fails(StatusCode.INVALID_ARGUMENT, "fence.join", p(0, 1), device);
            h.fails(StatusCode.INVALID_ARGUMENT, "fence.join", p(0, 2), a);
        } finally {
            a.release();
            b.release();
        }
    }

    @Test
    void awaitReturnsAtOnceForReachedAndNullFences() {
        RefObject fence = fence();
        try {
            h.run("fence.signal", p(), fence);
            assertEquals(0, h.call("fence.await", p(INFINITE, 0, 2), fence, null).i32(0));
            assertEquals(0, h.call("fence.await", p(INFINITE, 0, 0)).i32(0));
        } finally {
            fence.release();
        }
    }

    @Test
    void awaitWithAnExpiredTimeoutReturnsDeadlineExceeded() {
        RefObject fence = fence();
        try {
            assertEquals(StatusCode.DEADLINE_EXCEEDED.value(), h.call("fence.await", p(0, 0, 1), fence).i32(0));
        } finally {
            fence.release();
        }
    }

    @Test
    void awaitOnAFailedFenceFailsWithItsStatus() {
        RefObject fence = fence();
        try {
            h.run("fence.fail", p(StatusCode.RESOURCE_EXHAUSTED.value()), fence);
            h.fails(StatusCode.RESOURCE_EXHAUSTED, "fence.await", p(INFINITE, 0, 1), fence);
        } finally {
            fence.release();
        }
    }

    @Test
    void awaitRejectsWrongTypesTooManyFencesAndBadLayouts() {
        h.fails(StatusCode.INVALID_ARGUMENT, "fence.await", p(INFINITE, 0, 1), device);
        RefObject[] many = new RefObject[33];
        h.fails(StatusCode.OUT_OF_RANGE, "fence.await", p(INFINITE, 0, 33), many);
        h.fails(StatusCode.INVALID_ARGUMENT, "fence.await", p(INFINITE, 0, 2), (RefObject) null);
        h.fails(StatusCode.INVALID_ARGUMENT, "fence.await", p(INFINITE, 0, -1));
    }

    @Test
    void awaitYieldsWithoutHoldingAThreadAndResumesWhenSignalledElsewhere() throws Exception {
        RefObject a = fence();
        RefObject b = fence();
        ManualExecutor executor = new ManualExecutor();
        try {
            CompletableFuture<Harness.Results> result = h.callAsync(executor, "fence.await", p(INFINITE, 0, 2), a, b);
            assertEquals(1, executor.drain(), "the invocation ran once and gave its thread back");
            assertFalse(result.isDone(), "fence.await yielded on the pending fences");

            onOtherThread(() -> HalRefs.fence(a).signal());
            executor.drain();
            assertFalse(result.isDone(), "one of two fences reached: still waiting");

            onOtherThread(() -> HalRefs.fence(b).signal());
            assertEquals(1, executor.drain(), "the last signal scheduled exactly one resumption");
            assertTrue(result.isDone());
            try (Harness.Results r = result.get()) {
                assertEquals(0, r.i32(0));
            }
        } finally {
            a.release();
            b.release();
        }
    }

    @Test
    void awaitingInvocationLeavesItsWorkerFreeForOtherWork() throws Exception {
        RefObject fence = fence();
        ExecutorService worker = Executors.newSingleThreadExecutor();
        try {
            CompletableFuture<Harness.Results> result = h.callAsync(worker, "fence.await", p(INFINITE, 0, 1), fence);
            // The single worker must be able to run other work while the invocation waits.
            assertEquals("free", worker.submit(() -> "free").get(30, TimeUnit.SECONDS));
            assertFalse(result.isDone());
            onOtherThread(() -> HalRefs.fence(fence).signal());
            try (Harness.Results r = result.get(30, TimeUnit.SECONDS)) {
                assertEquals(0, r.i32(0));
            }
        } finally {
            worker.shutdownNow();
            fence.release();
        }
    }

    @Test
    void awaitResumesWithTheFenceFailureWhenFailedElsewhere() throws Exception {
        RefObject fence = fence();
        ManualExecutor executor = new ManualExecutor();
        try {
            CompletableFuture<Harness.Results> result = h.callAsync(executor, "fence.await", p(INFINITE, 0, 1), fence);
            executor.drain();
            assertFalse(result.isDone());
            onOtherThread(() -> HalRefs.fence(fence).fail(new StatusException(StatusCode.ABORTED, "device lost")));
            executor.drain();
            ExecutionException e = assertThrows(ExecutionException.class, result::get);
            StatusException status = assertInstanceOf(StatusException.class, e.getCause());
            assertEquals(StatusCode.ABORTED, status.code());
            assertTrue(status.getMessage().contains("device lost"), status.getMessage());
        } finally {
            fence.release();
        }
    }

    @Test
    void awaitTimesOutAsynchronouslyWithDeadlineExceeded() throws Exception {
        RefObject fence = fence();
        ExecutorService worker = Executors.newSingleThreadExecutor();
        try {
            CompletableFuture<Harness.Results> result = h.callAsync(worker, "fence.await", p(1, 0, 1), fence);
            try (Harness.Results r = result.get(30, TimeUnit.SECONDS)) {
                assertEquals(StatusCode.DEADLINE_EXCEEDED.value(), r.i32(0));
            }
            assertEquals(StatusCode.DEFERRED.value(), query(fence));
        } finally {
            worker.shutdownNow();
            fence.release();
        }
    }

    @Test
    void synchronousInvocationReturnsOnceAnotherThreadSignals() throws Exception {
        RefObject fence = fence();
        try {
            // Whether the signal lands before the await or while the invoking thread waits,
            // Invocation.invoke resumes the yielded await and it returns OK.
            Thread signaller = new Thread(() -> HalRefs.fence(fence).signal(), "signaller");
            signaller.start();
            assertEquals(0, h.call("fence.await", p(INFINITE, 0, 1), fence).i32(0));
            signaller.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(signaller.isAlive());
        } finally {
            fence.release();
        }
    }

    // ---- issue 16 (branch alloc): fence.create reuses a released fence nobody can observe

    /**
     * A reached fence whose last ref is released comes back from the next {@code fence.create}
     * moved on to its semaphore's next value: the same fence object, unreached, signalled and
     * awaited like a new one; an IREE-compiled program's fences then cost no fence, semaphore or
     * lock objects per call. Before, every create made a new fence on a new semaphore.
     */
    @Test
    void createReusesAReleasedReachedFenceAsANewUnreachedOne() {
        RefObject first = fence();
        Fence fence = HalRefs.fence(first);
        h.run("fence.signal", p(), first);
        first.release();
        RefObject second = fence();
        try {
            assertSame(fence, HalRefs.fence(second), "fence.create made a new fence instead of reusing one");
            assertEquals(StatusCode.DEFERRED.value(), query(second));
            h.run("fence.signal", p(), second);
            assertEquals(StatusCode.OK.value(), query(second));
            try (Harness.Results awaited = h.call("fence.await", p(0, 0, 1), second)) {
                assertEquals(StatusCode.OK.value(), awaited.i32(0));
            }
        } finally {
            second.release();
        }
    }

    /** A fence or semaphore someone else still holds, an unreached and a failed fence are never reused. */
    @Test
    void createNeverReusesAFenceThatIsHeldPendingOrFailed() {
        RefObject held = fence();
        Fence heldFence = HalRefs.fence(held);
        heldFence.retain(); // a host keeps the fence (as the coarse-fences ABI's callers do)
        h.run("fence.signal", p(), held);
        held.release();
        RefObject joinedSource = fence();
        Fence joinedFence = HalRefs.fence(joinedSource);
        RefObject joined = h.call("fence.join", p(0, 1), joinedSource).takeRef(0); // holds the semaphore
        h.run("fence.signal", p(), joinedSource);
        joinedSource.release();
        RefObject pending = fence();
        Fence pendingFence = HalRefs.fence(pending);
        pending.release();
        RefObject failed = fence();
        Fence failedFence = HalRefs.fence(failed);
        h.run("fence.fail", p(StatusCode.ABORTED.value()), failed);
        failed.release();
        RefObject next = fence();
        try {
            Fence made = HalRefs.fence(next);
            assertNotSame(heldFence, made);
            assertNotSame(joinedFence, made);
            assertNotSame(pendingFence, made);
            assertNotSame(failedFence, made);
            assertTrue(heldFence.query(), "the held fence stays reached at its own value");
            assertEquals(StatusCode.OK.value(), query(joined));
            assertEquals(StatusCode.DEFERRED.value(), query(next));
        } finally {
            next.release();
            joined.release();
            heldFence.release();
        }
    }
}
