package dev.ortho.hal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

@org.junit.jupiter.api.Timeout(value = 30, unit = TimeUnit.SECONDS)
class FenceTest {

    @Test
    void insertingTheSameSemaphoreKeepsTheLargerValue() {
        TimelineSemaphore s = new TimelineSemaphore("s", 0);
        Fence fence = Fence.at(s, 3);
        fence.insert(s, 1);
        fence.insert(s, 5);
        assertEquals(1, fence.timepointCount());
        assertEquals(SemaphoreList.of(s, 5), fence.toSemaphoreList());
    }

    @Test
    void joinIsTheMaxMergeOfAllTimepoints() {
        TimelineSemaphore a = new TimelineSemaphore("a", 0);
        TimelineSemaphore b = new TimelineSemaphore("b", 0);
        Fence one = Fence.at(a, 2);
        one.insert(b, 7);
        Fence two = Fence.at(a, 4);
        Fence joined = Fence.join(one, two);
        assertEquals(2, joined.timepointCount());
        SemaphoreList list = joined.toSemaphoreList();
        assertEquals(a, list.semaphore(0));
        assertEquals(4, list.value(0));
        assertEquals(7, list.value(1));
    }

    @Test
    void queryReportsReachedPendingAndFailure() {
        TimelineSemaphore a = new TimelineSemaphore("a", 0);
        TimelineSemaphore b = new TimelineSemaphore("b", 0);
        Fence fence = Fence.at(a, 1);
        fence.insert(b, 1);
        assertFalse(fence.query());
        a.signal(1);
        assertFalse(fence.query());
        b.signal(1);
        assertTrue(fence.query());
        b.fail(new StatusException(StatusCode.ABORTED, "late failure"));
        assertEquals(StatusCode.ABORTED, assertThrows(StatusException.class, fence::query).code(),
                "a failure is reported whenever in the timeline it happened");
        assertTrue(new Fence().query(), "an empty fence is reached");
    }

    @Test
    void signalAndAwait() {
        TimelineSemaphore a = new TimelineSemaphore("a", 0);
        TimelineSemaphore b = new TimelineSemaphore("b", 0);
        Fence fence = Fence.at(a, 2);
        fence.insert(b, 3);
        assertEquals(StatusCode.DEADLINE_EXCEEDED, assertThrows(StatusException.class,
                () -> fence.await(Timeout.of(Duration.ofMillis(10)))).code());
        fence.signal();
        fence.await(Timeout.immediate());
        assertEquals(2, a.query());
        assertEquals(3, b.query());
    }

    @Test
    void failFailsEverySemaphore() {
        TimelineSemaphore a = new TimelineSemaphore("a", 0);
        TimelineSemaphore b = new TimelineSemaphore("b", 0);
        Fence fence = Fence.at(a, 1);
        fence.insert(b, 1);
        fence.fail(new StatusException(StatusCode.CANCELLED, "stop"));
        assertEquals(StatusCode.CANCELLED, a.failure().code());
        assertEquals(StatusCode.CANCELLED, b.failure().code());
    }

    @Test
    void futureCompletesWhenReachedOrFailsWithTheFirstFailure() throws Exception {
        TimelineSemaphore a = new TimelineSemaphore("a", 0);
        TimelineSemaphore b = new TimelineSemaphore("b", 0);
        Fence fence = Fence.at(a, 1);
        fence.insert(b, 1);
        CompletableFuture<Void> done = fence.toCompletableFuture();
        a.signal(1);
        assertFalse(done.isDone());
        b.signal(1);
        assertTrue(done.isDone() && !done.isCompletedExceptionally());

        TimelineSemaphore c = new TimelineSemaphore("c", 0);
        CompletableFuture<Void> failed = Fence.at(c, 1).toCompletableFuture();
        c.fail(new StatusException(StatusCode.DATA_LOSS, "bad"));
        ExecutionException e = assertThrows(ExecutionException.class, failed::get);
        assertEquals(StatusCode.DATA_LOSS, ((StatusException) e.getCause()).code());
        assertTrue(new Fence().toCompletableFuture().isDone());
    }

    @Test
    void theFenceKeepsItsSemaphoresAliveUntilItsLastRelease() {
        TimelineSemaphore s = new TimelineSemaphore("s", 0);
        AtomicReference<StatusException> outcome = new AtomicReference<>();
        s.addTimepoint(1, (sem, v, f) -> outcome.set(f));
        Fence fence = Fence.at(s, 1);
        s.release(); // the creator's reference; the fence still holds one
        assertEquals(null, outcome.get());
        fence.retain();
        fence.release();
        assertEquals(null, outcome.get());
        fence.close(); // last reference: the semaphore is destroyed
        assertEquals(StatusCode.CANCELLED, outcome.get().code());
        assertEquals(StatusCode.FAILED_PRECONDITION,
                assertThrows(StatusException.class, () -> fence.insert(s, 2)).code());
    }

    @Test
    void nullSemaphoreIsInvalidArgument() {
        assertEquals(StatusCode.INVALID_ARGUMENT,
                assertThrows(StatusException.class, () -> new Fence().insert(null, 1)).code());
    }

    @Test
    void timepointValuesOutsideTheSemaphoreRangeAreOutOfRange() {
        try (Fence fence = new Fence()) {
            TimelineSemaphore s = new TimelineSemaphore("s", 0);
            StatusException e = assertThrows(StatusException.class, () -> fence.insert(s, -1));
            assertEquals(StatusCode.OUT_OF_RANGE, e.code());
            assertTrue(e.getMessage().contains("-1"), e.getMessage());
            assertEquals(StatusCode.OUT_OF_RANGE,
                    assertThrows(StatusException.class, () -> fence.insert(s, Semaphore.MAX_VALUE + 1)).code());
            assertEquals(0, fence.timepointCount());
            s.release();
        }
    }
}
