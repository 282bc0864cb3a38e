package dev.ortho.hal.cpu.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.internal.executable.TestLoaders;
import dev.ortho.hal.frontier.QueueAxes;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 20 §2: FIFO queues ({@code queue_order=fifo}) run operations in submission order and skip,
 * at submission, every wait on a value an earlier operation of the same queue signals — the wait
 * is counted as elided before anything waits, and still fails the operation if that value fails —
 * and, provisionally, waits on another queue of the device whose signalling epoch an earlier wait
 * already implies (confirmed when the operation becomes ready, registered after all if not).
 */
class FifoQueueTest {
    private static final SemaphoreList NONE = SemaphoreList.empty();
    private static final long Q0 = 1L;

    private static LocalTaskDevice device(String order) {
        try (LocalTaskDriver driver = new LocalTaskDriver(TestLoaders.standard(), LocalTaskOptions.DEFAULTS,
                QueueAxes.process())) {
            return (LocalTaskDevice) driver.createDevice(
                    DeviceUri.parse("local-task://?task_topology_group_count=2&queue_order=" + order));
        }
    }

    private static int readInt(Buffer buffer, long offset) {
        MemorySegment out = MemorySegment.ofArray(new byte[4]);
        buffer.read(offset, out);
        return out.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
    }

    /** Whether {@code s} reaches {@code value} within {@code millis} (a negative check waits that long). */
    private static boolean reachedWithin(Semaphore s, long value, long millis) {
        try {
            s.await(value, Timeout.of(Duration.ofMillis(millis)));
            return true;
        } catch (StatusException e) {
            assertEquals(StatusCode.DEADLINE_EXCEEDED, e.code(), e.getMessage());
            return false;
        }
    }

    /**
     * A fill, a copy of it and a second fill over the source, each waiting on the one before; the
     * first is held by a host semaphore until all are submitted (else it could finish before the
     * copy is submitted, whose wait is then reached, not elided: the test's old flake).
     */
    private static void chain(LocalTaskDevice device, Semaphore s, Buffer a, Buffer b) {
        dev.ortho.hal.spi.TimelineSemaphore gate = new dev.ortho.hal.spi.TimelineSemaphore("gate", 0);
        device.queueFill(Q0, SemaphoreList.of(gate, 1), SemaphoreList.of(s, 1), a, 0, 64, 7, 4, 0);
        device.queueCopy(Q0, SemaphoreList.of(s, 1), SemaphoreList.of(s, 2), a, 0, b, 0, 64, 0);
        device.queueFill(Q0, SemaphoreList.of(s, 2), SemaphoreList.of(s, 3), a, 0, 64, 9, 4, 0);
        gate.signal(1);
        s.await(3, Timeout.infinite());
        gate.release();
    }

    @Test
    void aSameQueueChainElidesEveryWaitAtSubmissionAndComputesTheSameResult() {
        for (String order : new String[] {"unordered", "fifo"}) {
            try (LocalTaskDevice device = device(order); Semaphore s = device.createSemaphore(0);
                    Buffer a = device.allocator().allocateBuffer(BufferParams.hostLocal(), 64);
                    Buffer b = device.allocator().allocateBuffer(BufferParams.hostLocal(), 64)) {
                chain(device, s, a, b);
                assertEquals(7, readInt(b, 60), order);
                assertEquals(9, readInt(a, 0), order);
                assertEquals(order.equals("fifo") ? 2 : 0, device.elidedWaits(0), order);
            }
        }
    }

    @Test
    void aLaterOperationDoesNotOvertakeOneThatIsStillWaiting() throws Exception {
        try (LocalTaskDevice device = device("fifo"); Semaphore gate = device.createSemaphore(0);
                Semaphore first = device.createSemaphore(0); Semaphore second = device.createSemaphore(0)) {
            device.queueBarrier(Q0, SemaphoreList.of(gate, 1), SemaphoreList.of(first, 1), 0);
            device.queueBarrier(Q0, NONE, SemaphoreList.of(second, 1), 0); // no waits of its own
            assertFalse(reachedWithin(second, 1, 100), "ran before the one submitted first");
            gate.signal(1);
            second.await(1, Timeout.infinite());
            assertEquals(1, first.query());
        }
        try (LocalTaskDevice device = device("unordered"); Semaphore gate = device.createSemaphore(0);
                Semaphore second = device.createSemaphore(0)) {
            device.queueBarrier(Q0, SemaphoreList.of(gate, 1), NONE, 0);
            device.queueBarrier(Q0, NONE, SemaphoreList.of(second, 1), 0);
            assertTrue(reachedWithin(second, 1, 60_000), "IREE's order: runs at once");
            gate.signal(1);
        }
    }

    @Test
    void anElidedWaitStillFailsItsOperationWhenTheValueFails() {
        try (LocalTaskDevice device = device("fifo"); Semaphore gate = device.createSemaphore(0);
                Semaphore s = device.createSemaphore(0); Semaphore t = device.createSemaphore(0)) {
            device.queueBarrier(Q0, SemaphoreList.of(gate, 1), SemaphoreList.of(s, 1), 0);
            device.queueBarrier(Q0, SemaphoreList.of(s, 1), SemaphoreList.of(t, 1), 0);
            assertEquals(1, device.elidedWaits(0));
            gate.fail(new StatusException(StatusCode.DATA_LOSS, "gate lost"));
            StatusException e = assertThrows(StatusException.class, () -> t.await(1, Timeout.infinite()));
            assertEquals(StatusCode.DATA_LOSS, e.code(), e.getMessage());
            assertNotNull(t.failure());
        }
    }

    @Test
    void anOperationFailedEarlyDoesNotLetItsSuccessorOvertakeTheOnesBeforeIt() {
        try (LocalTaskDevice device = device("fifo"); Semaphore gate = device.createSemaphore(0);
                Semaphore broken = device.createSemaphore(0); Semaphore first = device.createSemaphore(0);
                Semaphore third = device.createSemaphore(0)) {
            device.queueBarrier(Q0, SemaphoreList.of(gate, 1), SemaphoreList.of(first, 1), 0);
            device.queueBarrier(Q0, SemaphoreList.of(broken, 1), NONE, 0);
            broken.fail(new StatusException(StatusCode.ABORTED, "broken")); // retires the second at once
            device.queueBarrier(Q0, NONE, SemaphoreList.of(third, 1), 0);
            assertFalse(reachedWithin(third, 1, 100), "overtook the first operation");
            gate.signal(1);
            third.await(1, Timeout.infinite());
            assertEquals(1, first.query());
        }
    }

    @Test
    void aLongRunOfFailingOperationsFinishesWithoutRecursionAndTheQueueStaysUsable() {
        int n = 20_000;
        try (LocalTaskDevice device = device("fifo"); Semaphore gate = device.createSemaphore(0);
                Semaphore s = device.createSemaphore(0); Semaphore t = device.createSemaphore(0);
                Semaphore after = device.createSemaphore(0)) {
            device.queueBarrier(Q0, SemaphoreList.of(gate, 1), SemaphoreList.of(s, 1), 0);
            for (int i = 1; i <= n; i++) {
                device.queueBarrier(Q0, SemaphoreList.of(s, 1), SemaphoreList.of(t, i), 0);
            }
            assertEquals(n, device.elidedWaits(0));
            gate.fail(new StatusException(StatusCode.CANCELLED, "gate cancelled"));
            assertThrows(StatusException.class, () -> t.await(n, Timeout.infinite()));
            device.queueBarrier(Q0, NONE, SemaphoreList.of(after, 1), 0);
            after.await(1, Timeout.infinite());
        }
    }

    private static final long Q1 = 2L;

    static LocalTaskDevice twoQueues(String order) {
        try (LocalTaskDriver driver = new LocalTaskDriver(TestLoaders.standard(), LocalTaskOptions.DEFAULTS,
                QueueAxes.process())) {
            return (LocalTaskDevice) driver.createDevice(DeviceUri.parse(
                    "local-task://?queue_count=2&task_topology_group_count=2&queue_order=" + order));
        }
    }

    @Test
    void aFirstWaitOnAnotherQueueIsNotElided() {
        try (LocalTaskDevice device = twoQueues("fifo"); Semaphore s = device.createSemaphore(0)) {
            device.queueBarrier(Q0, NONE, SemaphoreList.of(s, 1), 0);
            device.queueBarrier(Q1, SemaphoreList.of(s, 1), SemaphoreList.of(s, 2), 0);
            s.await(2, Timeout.infinite());
            assertEquals(0, device.elidedWaits(1), "nothing queue 1 waited on before implies queue 0's order");
        }
    }

    /** The submissions of the two tests below (see the first one). */
    private static void fillThenCopyAcrossQueues(LocalTaskDevice device, Semaphore gate, Semaphore s, Semaphore t,
            Semaphore done, Buffer a, Buffer b, int pattern) {
        device.queueFill(Q0, SemaphoreList.of(gate, 1), SemaphoreList.of(t, 1), a, 0, 64, pattern, 4, 0);
        device.queueBarrier(Q0, NONE, SemaphoreList.of(s, 1), 0);
        device.queueBarrier(Q1, SemaphoreList.of(s, 1), NONE, 0);
        device.queueCopy(Q1, SemaphoreList.of(t, 1), SemaphoreList.of(done, 1), a, 0, b, 0, 64, 0);
    }

    /**
     * Queue 0 fills {@code a} (held by a gate, signals t=1) then signals s=1; queue 1 waits on s,
     * then copies {@code a} waiting on t. Queue 0's FIFO order puts the fill before the signal of
     * s, so queue 1's wait on t is implied by its earlier wait on s: elided at submission,
     * confirmed when the copy became ready.
     */
    @Test
    void aWaitOnAnotherQueueImpliedByAnEarlierWaitIsElidedBeforeAnythingWaits() {
        try (LocalTaskDevice device = twoQueues("fifo"); Semaphore gate = device.createSemaphore(0);
                Semaphore s = device.createSemaphore(0); Semaphore t = device.createSemaphore(0);
                Semaphore done = device.createSemaphore(0);
                Buffer a = device.allocator().allocateBuffer(BufferParams.hostLocal(), 64);
                Buffer b = device.allocator().allocateBuffer(BufferParams.hostLocal(), 64)) {
            fillThenCopyAcrossQueues(device, gate, s, t, done, a, b, 5);
            gate.signal(1);
            done.await(1, Timeout.infinite());
            assertEquals(5, readInt(b, 60));
            assertEquals(1, device.elidedWaits(1));
            assertEquals(0, device.unconfirmedWaits(1));
            assertEquals(2, device.queueFrontier(0).epochOf(device.queueAxis(0)),
                    "a FIFO queue retires with the epochs it was given at submission");
            // The ledger forgets an operation after its signals (TaskQueue.retire), so the thread
            // that retired the copy may still be between signalling done and forgetting it.
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
            while (device.pendingFifoSignals() != 0 && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait();
            }
            assertEquals(0, device.pendingFifoSignals(), "the ledger forgets what retired");
        }
    }

    /**
     * As above, but queue 1's first wait fails (the host fails s) before queue 0's fill ran: the
     * prediction the copy's elided wait relied on did not come true, so the copy waits for t after
     * all when it becomes ready, and still reads the fill.
     */
    @Test
    void aProvisionalElisionWhoseEarlierWaitFailedWaitsAfterAll() {
        try (LocalTaskDevice device = twoQueues("fifo"); Semaphore gate = device.createSemaphore(0);
                Semaphore s = device.createSemaphore(0); Semaphore t = device.createSemaphore(0);
                Semaphore done = device.createSemaphore(0);
                Buffer a = device.allocator().allocateBuffer(BufferParams.hostLocal(), 64);
                Buffer b = device.allocator().allocateBuffer(BufferParams.hostLocal(), 64)) {
            fillThenCopyAcrossQueues(device, gate, s, t, done, a, b, 6);
            s.fail(new StatusException(StatusCode.ABORTED, "s aborted")); // fails queue 1's first operation
            assertFalse(reachedWithin(done, 1, 100), "the copy ran before the fill it waits for");
            assertEquals(1, device.unconfirmedWaits(1));
            gate.signal(1);
            done.await(1, Timeout.infinite());
            assertEquals(6, readInt(b, 60));
            assertEquals(0, device.elidedWaits(1));
        }
    }

    @Test
    void aProvisionallyElidedWaitStillFailsItsOperationWhenTheValueFails() {
        try (LocalTaskDevice device = twoQueues("fifo"); Semaphore broken = device.createSemaphore(0);
                Semaphore s = device.createSemaphore(0); Semaphore t = device.createSemaphore(0);
                Semaphore done = device.createSemaphore(0); Semaphore gate = device.createSemaphore(0)) {
            device.queueBarrier(Q0, SemaphoreList.of(broken, 1), SemaphoreList.of(t, 1), 0);
            device.queueBarrier(Q0, SemaphoreList.of(gate, 1), SemaphoreList.of(s, 1), 0);
            device.queueBarrier(Q1, SemaphoreList.of(s, 1), NONE, 0);
            device.queueBarrier(Q1, SemaphoreList.of(t, 1), SemaphoreList.of(done, 1), 0);
            broken.fail(new StatusException(StatusCode.DATA_LOSS, "broken lost"));
            gate.signal(1);
            StatusException e = assertThrows(StatusException.class, () -> done.await(1, Timeout.infinite()));
            assertEquals(StatusCode.DATA_LOSS, e.code(), e.getMessage());
            assertEquals(1, s.query(), "queue 0 went on after the failed operation");
        }
    }

    @Test
    void unorderedQueuesElideNothingAcrossQueues() {
        try (LocalTaskDevice device = twoQueues("unordered"); Semaphore s = device.createSemaphore(0);
                Semaphore t = device.createSemaphore(0); Semaphore done = device.createSemaphore(0)) {
            device.queueBarrier(Q0, NONE, SemaphoreList.of(t, 1), 0);
            device.queueBarrier(Q0, NONE, SemaphoreList.of(s, 1), 0);
            device.queueBarrier(Q1, SemaphoreList.of(s, 1), NONE, 0);
            device.queueBarrier(Q1, SemaphoreList.of(t, 1), SemaphoreList.of(done, 1), 0);
            done.await(1, Timeout.infinite());
            assertEquals(0, device.elidedWaits(1));
            assertEquals(0, device.unconfirmedWaits(1));
        }
    }

    @Test
    void queueOrderIsAnOptionWithTwoValues() {
        assertTrue(LocalTaskOptions.DEFAULTS.with(Map.of("queue_order", "fifo")).fifoQueues());
        assertFalse(LocalTaskOptions.DEFAULTS.with(Map.of("queue_order", "unordered")).fifoQueues());
        assertFalse(LocalTaskOptions.DEFAULTS.fifoQueues(), "IREE's order is the default");
        StatusException e = assertThrows(StatusException.class,
                () -> LocalTaskOptions.DEFAULTS.with(Map.of("queue_order", "lifo")));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("queue_order='lifo'"), e.getMessage());
    }
}
