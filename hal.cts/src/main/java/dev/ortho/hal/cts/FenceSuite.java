package dev.ortho.hal.cts;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.Device;
import dev.ortho.hal.Fence;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Fence conformance with the device's own semaphores: fences as the wait and signal lists of
 * queue operations, joins with max-merge, failure propagation and {@code toCompletableFuture}.
 */
public abstract class FenceSuite extends DeviceTestBase {
    private static final long ANY = Device.QUEUE_AFFINITY_ANY;
    /** Hang guard only. */
    private static final Timeout GUARD = Timeout.of(Duration.ofSeconds(30));

    @Test
    void queueOperationsSignalAndWaitOnFences() {
        try (Semaphore a = device.createSemaphore(0); Semaphore b = device.createSemaphore(0);
                Buffer buffer = allocate(8)) {
            Fence filled = Fence.at(a, 1);
            filled.insert(b, 1);
            device.queueFill(ANY, SemaphoreList.empty(), filled.toSemaphoreList(), buffer, 0, 8, 6, 4, 0);
            filled.await(GUARD);
            assertTrue(filled.query());
            assertEquals(1, a.query());
            assertEquals(1, b.query());
            try (Fence copied = Fence.at(a, 2)) {
                device.queueUpdate(ANY, filled.toSemaphoreList(), copied.toSemaphoreList(), i32(7), buffer, 4, 0);
                copied.await(GUARD);
            }
            assertArrayEquals(new int[] {6, 7}, readInts(buffer));
            filled.release();
        }
    }

    @Test
    void joinsKeepTheLargerValuePerSemaphore() {
        try (Semaphore a = device.createSemaphore(0); Semaphore b = device.createSemaphore(0);
                Fence first = Fence.at(a, 2); Fence second = Fence.at(a, 1)) {
            second.insert(b, 3);
            try (Fence joined = Fence.join(first, second)) {
                assertEquals(2, joined.timepointCount());
                SemaphoreList list = joined.toSemaphoreList();
                for (int i = 0; i < list.size(); i++) {
                    assertEquals(list.semaphore(i) == a ? 2 : 3, list.value(i));
                }
                device.queueBarrier(ANY, SemaphoreList.empty(), SemaphoreList.of(a, 1), 0);
                assertFalse(joined.query(), "a at 1 does not satisfy a >= 2");
                device.queueBarrier(ANY, SemaphoreList.empty(), SemaphoreList.of(a, 2), 0);
                device.queueBarrier(ANY, SemaphoreList.empty(), SemaphoreList.of(b, 3), 0);
                joined.await(GUARD);
                assertTrue(joined.query());
            }
        }
    }

    @Test
    void aFailedWaitFailsTheSignalFenceAndItsFuture() throws Exception {
        try (Semaphore upstream = device.createSemaphore(0); Semaphore out = device.createSemaphore(0);
                Fence done = Fence.at(out, 1)) {
            CompletableFuture<Void> future = done.toCompletableFuture();
            upstream.fail(new StatusException(StatusCode.RESOURCE_EXHAUSTED, "ran out upstream"));
            device.queueBarrier(ANY, SemaphoreList.of(upstream, 1), done.toSemaphoreList(), 0);
            ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(30, TimeUnit.SECONDS));
            StatusException status = assertInstanceOf(StatusException.class, e.getCause());
            assertEquals(StatusCode.RESOURCE_EXHAUSTED, status.code());
            assertEquals(StatusCode.RESOURCE_EXHAUSTED, assertThrows(StatusException.class, done::query).code());
            assertEquals(StatusCode.RESOURCE_EXHAUSTED,
                    assertThrows(StatusException.class, () -> done.await(GUARD)).code());
        }
    }

    @Test
    void futuresCompleteWhenTheQueueSignalsAndAtOnceForReachedFences() throws Exception {
        try (Semaphore s = device.createSemaphore(0); Fence fence = Fence.at(s, 1)) {
            CompletableFuture<Void> future = fence.toCompletableFuture();
            assertFalse(future.isDone());
            device.queueBarrier(ANY, SemaphoreList.empty(), fence.toSemaphoreList(), 0);
            future.get(30, TimeUnit.SECONDS);
            assertTrue(fence.toCompletableFuture().isDone(), "a reached fence completes inline");
            assertTrue(new Fence().toCompletableFuture().isDone(), "an empty fence is reached");
        }
    }

    @Test
    void aFenceKeepsItsSemaphoresAliveUntilItsLastRelease() {
        Semaphore s = device.createSemaphore(0);
        Fence fence = Fence.at(s, 1);
        s.release();
        device.queueBarrier(ANY, SemaphoreList.empty(), fence.toSemaphoreList(), 0);
        fence.await(GUARD);
        assertTrue(fence.query());
        fence.release();
        assertEquals(StatusCode.FAILED_PRECONDITION,
                assertThrows(StatusException.class, () -> fence.insert(s, 2)).code());
    }
}
