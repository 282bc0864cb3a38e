package dev.ortho.hal.cts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Fence;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Semaphore and fence conformance: signal, query, fail, waits with timeouts, timepoints, multi-wait. */
public abstract class SemaphoreSuite extends DeviceTestBase {

    @Test
    void signalAdvancesTheValueAndReleasesWaiters() throws Exception {
        try (Semaphore semaphore = device.createSemaphore(1)) {
            assertEquals(1, semaphore.query());
            CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> semaphore.await(3, Timeout.infinite()));
            semaphore.signal(3);
            waiter.get(30, TimeUnit.SECONDS);
            assertEquals(3, semaphore.query());
        }
    }

    @Test
    void signalAtOrBelowTheCurrentValueIsInvalidArgument() {
        try (Semaphore semaphore = device.createSemaphore(5)) {
            assertStatus(StatusCode.INVALID_ARGUMENT, () -> semaphore.signal(5));
            assertStatus(StatusCode.INVALID_ARGUMENT, () -> semaphore.signal(4));
            assertStatus(StatusCode.OUT_OF_RANGE, () -> semaphore.signal(Semaphore.MAX_VALUE + 1));
        }
    }

    @Test
    void createWithAnOutOfRangeValueIsOutOfRange() {
        assertStatus(StatusCode.OUT_OF_RANGE, () -> device.createSemaphore(-1));
    }

    @Test
    void failureIsStickyAndFirstWins() {
        try (Semaphore semaphore = device.createSemaphore(0)) {
            semaphore.fail(new StatusException(StatusCode.DATA_LOSS, "first"));
            semaphore.fail(new StatusException(StatusCode.ABORTED, "second"));
            assertEquals(StatusCode.DATA_LOSS, semaphore.failure().code());
            assertStatus(StatusCode.DATA_LOSS, semaphore::query);
            assertStatus(StatusCode.DATA_LOSS, () -> semaphore.await(1, Timeout.infinite()));
        }
    }

    @Test
    void waitingPastTheDeadlineIsDeadlineExceeded() {
        try (Semaphore semaphore = device.createSemaphore(0)) {
            assertStatus(StatusCode.DEADLINE_EXCEEDED, () -> semaphore.await(1, Timeout.immediate()));
            assertStatus(StatusCode.DEADLINE_EXCEEDED, () -> semaphore.await(1, Timeout.ofNanos(1_000_000)));
            semaphore.await(0, Timeout.immediate());
        }
    }

    @Test
    void timepointsRunOnceWhenTheValueIsReachedOrInlineIfAlreadyReached() {
        try (Semaphore semaphore = device.createSemaphore(0)) {
            AtomicReference<Long> seen = new AtomicReference<>();
            semaphore.addTimepoint(2, (s, value, failure) -> {
                assertNull(failure);
                seen.set(value);
            });
            semaphore.signal(1);
            assertNull(seen.get());
            semaphore.signal(2);
            assertEquals(2L, seen.get());
            AtomicReference<Semaphore> inline = new AtomicReference<>();
            semaphore.addTimepoint(1, (s, value, failure) -> inline.set(s));
            assertSame(semaphore, inline.get());
        }
    }

    @Test
    void cancelledTimepointsNeverRunAndFailureReachesTheOthers() {
        try (Semaphore semaphore = device.createSemaphore(0)) {
            AtomicReference<StatusException> failure = new AtomicReference<>();
            var cancelled = semaphore.addTimepoint(1, (s, value, f) -> failure.set(new StatusException(StatusCode.INTERNAL, "ran")));
            assertTrue(cancelled.cancel());
            semaphore.addTimepoint(1, (s, value, f) -> failure.set(f));
            semaphore.fail(new StatusException(StatusCode.ABORTED, "stop"));
            assertEquals(StatusCode.ABORTED, failure.get().code());
        }
    }

    @Test
    void multiWaitAllAndAny() throws Exception {
        try (Semaphore a = device.createSemaphore(0); Semaphore b = device.createSemaphore(0)) {
            SemaphoreList both = SemaphoreList.of(new Semaphore[] {a, b}, new long[] {1, 1});
            assertStatus(StatusCode.DEADLINE_EXCEEDED, () -> both.awaitAny(Timeout.immediate()));
            b.signal(1);
            assertEquals(1, both.awaitAny(Timeout.immediate()));
            assertStatus(StatusCode.DEADLINE_EXCEEDED, () -> both.awaitAll(Timeout.immediate()));
            CountDownLatch started = new CountDownLatch(1);
            CompletableFuture<Void> all = CompletableFuture.runAsync(() -> {
                started.countDown();
                both.awaitAll(Timeout.infinite());
            });
            started.await();
            a.signal(1);
            all.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void fencesMaxMergeJoinAndCompleteTheirFuture() throws Exception {
        try (Semaphore a = device.createSemaphore(0); Semaphore b = device.createSemaphore(0)) {
            Fence first = Fence.at(a, 1);
            first.insert(a, 3);
            first.insert(a, 2);
            Fence joined = Fence.join(first, Fence.at(b, 1));
            assertEquals(2, joined.timepointCount());
            CompletableFuture<Void> future = joined.toCompletableFuture();
            a.signal(2);
            assertFalse(joined.query());
            a.signal(3);
            b.signal(1);
            future.get(30, TimeUnit.SECONDS);
            assertTrue(joined.query());
            joined.await(Timeout.immediate());
            first.release();
            joined.release();
        }
    }

    @Test
    void aFailedFenceFailsItsFutureAndItsQuery() {
        try (Semaphore a = device.createSemaphore(0)) {
            Fence fence = Fence.at(a, 1);
            CompletableFuture<Void> future = fence.toCompletableFuture();
            fence.fail(new StatusException(StatusCode.CANCELLED, "stopped"));
            assertTrue(future.isCompletedExceptionally());
            assertStatus(StatusCode.CANCELLED, fence::query);
            fence.release();
        }
    }
}
