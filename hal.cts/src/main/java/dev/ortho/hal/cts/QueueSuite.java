package dev.ortho.hal.cts;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.HostCall;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Queue conformance: every queue operation, failure propagation, host calls, pipelines. */
public abstract class QueueSuite extends DeviceTestBase {
    private static final long ANY = Device.QUEUE_AFFINITY_ANY;
    private static final SemaphoreList NONE = SemaphoreList.empty();

    @Test
    void fillUpdateAndCopyRunInQueueOrderAndSignal() {
        try (Semaphore done = device.createSemaphore(0); Buffer a = allocate(16); Buffer b = allocate(16)) {
            device.queueFill(ANY, NONE, SemaphoreList.of(done, 1), a, 0, 16, 0x01010101, 4, 0);
            device.queueUpdate(ANY, SemaphoreList.of(done, 1), SemaphoreList.of(done, 2), i32(7, 8), a, 4, 0);
            device.queueCopy(ANY, SemaphoreList.of(done, 2), SemaphoreList.of(done, 3), a, 0, b, 0, 16, 0);
            done.await(3, Timeout.infinite());
            assertArrayEquals(new int[] {0x01010101, 7, 8, 0x01010101}, readInts(b));
        }
    }

    @Test
    void updateCapturesTheHostBytesAtTheCall() {
        try (Semaphore go = device.createSemaphore(0); Semaphore done = device.createSemaphore(0); Buffer a = allocate(4)) {
            MemorySegment source = i32(5);
            submit(() -> device.queueUpdate(ANY, SemaphoreList.of(go, 1), SemaphoreList.of(done, 1), source, a, 0, 0));
            source.setAtIndex(I32, 0, 6);
            go.signal(1);
            done.await(1, Timeout.infinite());
            assertArrayEquals(new int[] {5}, readInts(a));
        }
    }

    @Test
    void aFailedWaitFailsTheSignalsAndSkipsTheOperation() {
        try (Semaphore wait = device.createSemaphore(0); Semaphore signal = device.createSemaphore(0);
                Buffer a = allocate(4)) {
            wait.fail(new StatusException(StatusCode.DATA_LOSS, "upstream broke"));
            device.queueFill(ANY, SemaphoreList.of(wait, 1), SemaphoreList.of(signal, 1), a, 0, 4, 9, 4, 0);
            assertStatus(StatusCode.DATA_LOSS, () -> signal.await(1, Timeout.infinite()));
            assertArrayEquals(new int[] {0}, readInts(a));
        }
    }

    @Test
    void argumentErrorsAreThrownAtTheCallNamingTheValue() {
        try (Buffer a = allocate(16)) {
            var range = assertStatus(StatusCode.OUT_OF_RANGE, () -> device.queueFill(ANY, NONE, NONE, a, 8, 16, 0, 1, 0));
            assertTrue(range.getMessage().contains("[8, 24)"), range.getMessage());
            assertStatus(StatusCode.INVALID_ARGUMENT, () -> device.queueFill(ANY, NONE, NONE, a, 0, 16, 0, 3, 0));
            assertStatus(StatusCode.OUT_OF_RANGE, () -> device.queueCopy(ANY, NONE, NONE, a, 0, a, 8, 16, 0));
            assertStatus(StatusCode.INVALID_ARGUMENT, () -> device.queueBarrier(ANY, null, NONE, 0));
        }
    }

    @Test
    void barrierJoinsWaitsIntoSignals() {
        try (Semaphore a = device.createSemaphore(0); Semaphore b = device.createSemaphore(0);
                Semaphore out = device.createSemaphore(0)) {
            a.signal(1);
            b.signal(2);
            device.queueBarrier(ANY, SemaphoreList.of(new Semaphore[] {a, b}, new long[] {1, 2}),
                    SemaphoreList.of(out, 5), 0);
            out.await(5, Timeout.infinite());
            device.queueExecute(ANY, SemaphoreList.of(out, 5), SemaphoreList.of(out, 6), null, null, 0);
            out.await(6, Timeout.infinite());
            assertEquals(6, out.query());
            device.queueFlush(ANY);
        }
    }

    @Test
    void allocaGivesAUsableZeroedBufferAndDeallocaSignals() {
        try (Semaphore s = device.createSemaphore(0)) {
            Buffer buffer = device.queueAlloca(ANY, NONE, SemaphoreList.of(s, 1), BufferParams.hostLocal(), 64, 0);
            s.await(1, Timeout.infinite());
            assertEquals(64, buffer.byteLength());
            device.queueFill(ANY, SemaphoreList.of(s, 1), SemaphoreList.of(s, 2), buffer, 0, 64, 3, 1, 0);
            s.await(2, Timeout.infinite());
            assertEquals(0x03030303, readInts(buffer)[15]);
            device.queueDealloca(ANY, SemaphoreList.of(s, 2), SemaphoreList.of(s, 3), buffer, 0);
            s.await(3, Timeout.infinite());
            buffer.release();
        }
    }

    @Test
    void blockingHostCallsRunAfterTheWaitsWithTheirArguments() {
        try (Semaphore s = device.createSemaphore(0)) {
            AtomicReference<long[]> seen = new AtomicReference<>();
            HostCall call = (d, args, signals) -> {
                assertEquals(1, s.query(), "runs after its wait");
                seen.set(args.clone());
                return true;
            };
            device.queueBarrier(ANY, NONE, SemaphoreList.of(s, 1), 0);
            device.queueHostCall(ANY, SemaphoreList.of(s, 1), SemaphoreList.of(s, 2), call, new long[] {1, 2, 3, 4}, 0);
            s.await(2, Timeout.infinite());
            assertArrayEquals(new long[] {1, 2, 3, 4}, seen.get());
        }
    }

    @Test
    void aThrowingHostCallFailsItsSignals() {
        try (Semaphore s = device.createSemaphore(0)) {
            device.queueHostCall(ANY, NONE, SemaphoreList.of(s, 1), (d, args, signals) -> {
                throw new StatusException(StatusCode.ABORTED, "host said no");
            }, new long[4], 0);
            assertStatus(StatusCode.ABORTED, () -> s.await(1, Timeout.infinite()));
        }
    }

    @Test
    void nonBlockingHostCallsGetNoSignalsAndTheirFailuresAreDropped() throws Exception {
        try (Semaphore s = device.createSemaphore(0)) {
            CompletableFuture<SemaphoreList> given = new CompletableFuture<>();
            device.queueHostCall(ANY, NONE, SemaphoreList.of(s, 1), (d, args, signals) -> {
                given.complete(signals);
                throw new StatusException(StatusCode.INTERNAL, "ignored");
            }, null, HostCall.FLAG_NON_BLOCKING);
            s.await(1, Timeout.infinite());
            assertTrue(given.get(30, TimeUnit.SECONDS).isEmpty());
            assertEquals(null, s.failure());
        }
    }

    @Test
    void deferredHostCallsSignalLater() throws Exception {
        try (Semaphore s = device.createSemaphore(0)) {
            CompletableFuture<SemaphoreList> kept = new CompletableFuture<>();
            device.queueHostCall(ANY, NONE, SemaphoreList.of(s, 1), (d, args, signals) -> {
                kept.complete(signals);
                return false;
            }, null, 0);
            SemaphoreList signals = kept.get(30, TimeUnit.SECONDS);
            assertStatus(StatusCode.DEADLINE_EXCEEDED, () -> s.await(1, Timeout.immediate()));
            signals.signal();
            s.await(1, Timeout.immediate());
        }
    }

    @Test
    void submitBeforeSignalPipelinesCompleteWhenTheHostSignals() {
        try (Semaphore start = device.createSemaphore(0); Semaphore stage = device.createSemaphore(0);
                Buffer a = allocate(8); Buffer b = allocate(8)) {
            submit(() -> {
                device.queueFill(ANY, SemaphoreList.of(start, 1), SemaphoreList.of(stage, 1), a, 0, 8, 11, 4, 0);
                device.queueCopy(ANY, SemaphoreList.of(stage, 1), SemaphoreList.of(stage, 2), a, 0, b, 0, 8, 0);
            });
            assertFalse(stage.query() > 0, "nothing runs before the host signals");
            start.signal(1);
            stage.await(2, Timeout.infinite());
            assertArrayEquals(new int[] {11, 11}, readInts(b));
        }
    }

    @Test
    @Tag(ASYNC_QUEUE)
    void queueOperationsReturnBeforeTheirWaitsAreReached() {
        require(ASYNC_QUEUE);
        try (Semaphore wait = device.createSemaphore(0); Semaphore signal = device.createSemaphore(0)) {
            device.queueBarrier(ANY, SemaphoreList.of(wait, 1), SemaphoreList.of(signal, 1), 0);
            assertEquals(0, signal.query());
            wait.signal(1);
            signal.await(1, Timeout.infinite());
        }
    }

    @Test
    @Tag(MULTI_QUEUE)
    void aChainAcrossThreeQueuesCompletesInOrder() {
        require(MULTI_QUEUE);
        try (Semaphore s = device.createSemaphore(0); Buffer a = allocate(4); Buffer b = allocate(4)) {
            device.queueFill(1L, NONE, SemaphoreList.of(s, 1), a, 0, 4, 21, 4, 0);
            device.queueCopy(2L, SemaphoreList.of(s, 1), SemaphoreList.of(s, 2), a, 0, b, 0, 4, 0);
            device.queueBarrier(4L, SemaphoreList.of(s, 2), SemaphoreList.of(s, 3), 0);
            s.await(3, Timeout.infinite());
            assertArrayEquals(new int[] {21}, readInts(b));
        }
    }

    @Test
    @Tag(STREAM_ORDERED_REUSE)
    void deallocatedMemoryIsReusedByALaterAllocaOnTheSameQueue() {
        require(STREAM_ORDERED_REUSE);
        try (Semaphore s = device.createSemaphore(0)) {
            Buffer first = device.queueAlloca(ANY, NONE, SemaphoreList.of(s, 1), BufferParams.deviceLocal(), 4096, 0);
            device.queueDealloca(ANY, SemaphoreList.of(s, 1), SemaphoreList.of(s, 2), first, 0);
            s.await(2, Timeout.infinite()); // the first block exists only once its alloca ran
            long allocated = device.allocator().statistics().bytesAllocated();
            Buffer second = device.queueAlloca(ANY, SemaphoreList.of(s, 2), SemaphoreList.of(s, 3),
                    BufferParams.deviceLocal(), 4096, 0);
            s.await(3, Timeout.infinite());
            assertEquals(allocated, device.allocator().statistics().bytesAllocated());
            first.release();
            second.release();
        }
    }

    @Test
    void aClosedDeviceRefusesNewWork() {
        Device other = createDevice();
        other.close();
        StatusException e = org.junit.jupiter.api.Assertions.assertThrows(StatusException.class,
                () -> other.queueBarrier(ANY, NONE, NONE, 0));
        assertTrue(e.code() == StatusCode.FAILED_PRECONDITION || e.code() == StatusCode.UNAVAILABLE, e.toString());
    }

    /**
     * Runs {@code submission} on a helper thread and returns once it has been issued: either it
     * returned (an asynchronous device) or the helper is parked inside it waiting for a semaphore
     * (a synchronous device, which blocks the caller on the waits). No timing is involved.
     */
    private static void submit(Runnable submission) {
        AtomicReference<Thread> helper = new AtomicReference<>();
        CompletableFuture<Void> done = CompletableFuture.runAsync(() -> {
            helper.set(Thread.currentThread());
            submission.run();
        }, runnable -> Thread.ofPlatform().daemon().name("cts-submitter").start(runnable));
        while (!done.isDone()) {
            Thread thread = helper.get();
            if (thread != null && (thread.getState() == Thread.State.WAITING
                    || thread.getState() == Thread.State.TIMED_WAITING)) {
                return;
            }
            Thread.onSpinWait();
        }
        done.join(); // rethrows a submission error, if any
    }
}
