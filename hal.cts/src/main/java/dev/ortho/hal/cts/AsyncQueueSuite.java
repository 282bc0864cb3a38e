package dev.ortho.hal.cts;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.Device;
import dev.ortho.hal.HostCall;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.frontier.FrontierComparison;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Conformance of asynchronous, multi-queue devices: readiness order, submit-before-signal
 * pipelines across queues, frontier transitivity (seed 002), concurrent submitters, long
 * pipelines and teardown with work in flight. Every test needs {@link #ASYNC_QUEUE}; the
 * cross-queue ones also {@link #MULTI_QUEUE} (queue affinity bits 0, 1, 2 select three queues).
 */
@Tag(DeviceTestBase.ASYNC_QUEUE)
public abstract class AsyncQueueSuite extends DeviceTestBase {
    private static final SemaphoreList NONE = SemaphoreList.empty();
    private static final long Q0 = 1L;
    private static final long Q1 = 2L;
    private static final long Q2 = 4L;

    /** A blocking host call that appends {@code tag} to {@code log}. */
    private static HostCall record(List<String> log, String tag) {
        return (d, args, signals) -> {
            log.add(tag);
            return true;
        };
    }

    @Test
    void operationsRunInTheOrderTheirWaitsResolveNotInSubmissionOrder() {
        require(ASYNC_QUEUE);
        requireNot(FIFO_QUEUE);
        List<String> log = new CopyOnWriteArrayList<>();
        try (Semaphore go = device.createSemaphore(0); Semaphore done = device.createSemaphore(0)) {
            device.queueHostCall(Q0, SemaphoreList.of(go, 2), SemaphoreList.of(done, 2), record(log, "first"), null, 0);
            device.queueHostCall(Q0, SemaphoreList.of(go, 1), SemaphoreList.of(done, 1), record(log, "second"), null, 0);
            go.signal(1);
            done.await(1, Timeout.infinite());
            assertEquals(List.of("second"), log, "the submission whose wait resolved runs; the earlier one waits");
            go.signal(2);
            done.await(2, Timeout.infinite());
            assertEquals(List.of("second", "first"), log);
        }
    }

    @Test
    void aFifoQueueRunsOperationsInSubmissionOrderWhateverOrderTheirWaitsResolveIn() {
        require(ASYNC_QUEUE);
        require(FIFO_QUEUE);
        List<String> log = new CopyOnWriteArrayList<>();
        try (Semaphore go = device.createSemaphore(0); Semaphore done = device.createSemaphore(0)) {
            device.queueHostCall(Q0, SemaphoreList.of(go, 2), SemaphoreList.of(done, 2), record(log, "first"), null, 0);
            device.queueHostCall(Q0, SemaphoreList.of(go, 1), SemaphoreList.of(done, 3), record(log, "second"), null, 0);
            go.signal(1);
            assertEquals(0, done.query(), "the second ran before the first, whose wait is not reached");
            go.signal(2);
            done.await(3, Timeout.infinite());
            assertEquals(List.of("first", "second"), log);
        }
    }

    @Test
    @Tag(MULTI_QUEUE)
    @Tag(FRONTIERS)
    void frontiersPropagateTransitivelyThroughAThreeQueueChain() {
        require(MULTI_QUEUE);
        require(FRONTIERS);
        try (Semaphore s1 = device.createSemaphore(0); Semaphore s2 = device.createSemaphore(0);
                Semaphore s3 = device.createSemaphore(0)) {
            // Q_A signals S1; Q_B waits S1 and signals S2; Q_C waits S2 and signals S3 (seed 002).
            device.queueBarrier(Q2, SemaphoreList.of(s2, 1), SemaphoreList.of(s3, 1), 0);
            device.queueBarrier(Q1, SemaphoreList.of(s1, 1), SemaphoreList.of(s2, 1), 0);
            device.queueBarrier(Q0, NONE, SemaphoreList.of(s1, 1), 0);
            s3.await(1, Timeout.infinite());
            Frontier a = new Frontier(16);
            Frontier b = new Frontier(16);
            Frontier c = new Frontier(16);
            assertTrue(s1.frontierAt(1, a) && s2.frontierAt(1, b) && s3.frontierAt(1, c));
            assertFalse(a.isEmpty() || a.isTainted() || b.isTainted() || c.isTainted(), a + " " + b + " " + c);
            assertEquals(FrontierComparison.BEFORE, Frontier.compare(a, b), a + " vs " + b);
            assertEquals(FrontierComparison.BEFORE, Frontier.compare(b, c), b + " vs " + c);
            assertTrue(b.size() > a.size() && c.size() > b.size(), "each queue adds its own axis: " + c);
            for (int i = 0; i < a.size(); i++) {
                assertTrue(c.epochOf(a.axisAt(i)) >= a.epochAt(i), "Q_C knows Q_A's work transitively: " + c);
            }
        }
    }

    @Test
    @Tag(MULTI_QUEUE)
    void submitBeforeSignalPipelinesSpanQueuesAndRunWhenTheHostSignals() {
        require(MULTI_QUEUE);
        List<String> log = new CopyOnWriteArrayList<>();
        try (Semaphore start = device.createSemaphore(0); Semaphore stage = device.createSemaphore(0);
                Buffer a = allocate(16); Buffer b = allocate(16)) {
            device.queueHostCall(Q0, SemaphoreList.of(stage, 2), SemaphoreList.of(stage, 3), record(log, "read"),
                    null, 0);
            device.queueCopy(Q1, SemaphoreList.of(stage, 1), SemaphoreList.of(stage, 2), a, 0, b, 0, 16, 0);
            device.queueFill(Q2, SemaphoreList.of(start, 1), SemaphoreList.of(stage, 1), a, 0, 16, 42, 4, 0);
            assertEquals(0, stage.query());
            assertTrue(log.isEmpty());
            start.signal(1);
            stage.await(3, Timeout.infinite());
            assertArrayEquals(new int[] {42, 42, 42, 42}, readInts(b));
            assertEquals(List.of("read"), log);
        }
    }

    @Test
    @Tag(MULTI_QUEUE)
    void manyHostThreadsSubmitInterleavedDependentWorkToTwoQueues() throws Exception {
        require(MULTI_QUEUE);
        int threads = 6;
        int steps = 300;
        ExecutorService submitters = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<int[]>> results = new ArrayList<>();
        AtomicInteger orderViolations = new AtomicInteger();
        try {
            for (int t = 0; t < threads; t++) {
                int id = t;
                results.add(submitters.submit(() -> {
                    try (Semaphore chain = device.createSemaphore(0); Buffer cell = allocate(4);
                            Buffer out = allocate(4L * steps)) {
                        int[] seen = new int[1];
                        start.await();
                        for (int i = 0; i < steps; i++) {
                            long update = (i + id) % 2 == 0 ? Q0 : Q1;
                            long check = update == Q0 ? Q1 : Q0;
                            int value = id * 100_000 + i;
                            // step i: write the cell on one queue, copy it out and check it on the other
                            device.queueUpdate(update, SemaphoreList.of(chain, 3L * i), SemaphoreList.of(chain, 3L * i + 1),
                                    i32(value), cell, 0, 0);
                            device.queueCopy(check, SemaphoreList.of(chain, 3L * i + 1),
                                    SemaphoreList.of(chain, 3L * i + 2), cell, 0, out, 4L * i, 4, 0);
                            int expected = i;
                            device.queueHostCall(update, SemaphoreList.of(chain, 3L * i + 2),
                                    SemaphoreList.of(chain, 3L * i + 3), (d, args, signals) -> {
                                        if (seen[0] != expected) {
                                            orderViolations.incrementAndGet();
                                        }
                                        seen[0] = expected + 1;
                                        return true;
                                    }, null, 0);
                        }
                        chain.await(3L * steps, Timeout.infinite());
                        return readInts(out);
                    }
                }));
            }
            start.countDown();
            for (int t = 0; t < threads; t++) {
                int[] out = results.get(t).get(120, TimeUnit.SECONDS);
                for (int i = 0; i < steps; i++) {
                    assertEquals(t * 100_000 + i, out[i], "thread " + t + " step " + i);
                }
            }
            assertEquals(0, orderViolations.get());
        } finally {
            submitters.shutdownNow();
        }
    }

    /**
     * How many queue operations the device under test accepts in flight before it refuses more with
     * RESOURCE_EXHAUSTED (a remote server's per-client quota), or {@link Integer#MAX_VALUE} for no
     * limit. Devices with a quota run the long-pipeline test as a check of that refusal.
     */
    protected int inFlightQuota() {
        return Integer.MAX_VALUE;
    }

    @Test
    void pipelinedChainsOfTenThousandSubmitBeforeSignalSubmissionsComplete() {
        require(ASYNC_QUEUE);
        int n = 10_000;
        boolean multi = capabilities().contains(MULTI_QUEUE);
        boolean overQuota = n > inFlightQuota();
        try (Semaphore s = device.createSemaphore(0); Buffer cell = allocate(4)) {
            for (int i = 1; i <= n; i++) {
                long queue = multi ? (i % 3 == 0 ? Q0 : i % 3 == 1 ? Q1 : Q2) : Q0;
                SemaphoreList wait = SemaphoreList.of(s, i);
                SemaphoreList signal = SemaphoreList.of(s, i + 1L);
                switch (i % 3) {
                    case 0 -> device.queueFill(queue, wait, signal, cell, 0, 4, i, 4, 0);
                    case 1 -> device.queueBarrier(queue, wait, signal, 0);
                    default -> device.queueUpdate(queue, wait, signal, i32(i), cell, 0, 0);
                }
            }
            if (overQuota) {
                // nothing can retire before the host signals, so operation quota + 1 is refused and
                // fails the chain's semaphore: an error naming the quota, never a hang or a partial run
                StatusException e = assertStatus(StatusCode.RESOURCE_EXHAUSTED, () -> s.await(n + 1L,
                        Timeout.infinite()));
                assertTrue(e.getMessage().contains("quota"), e.getMessage());
                assertArrayEquals(new int[1], readInts(cell), "no operation of the refused chain ran");
                return;
            }
            assertEquals(0, s.query(), "nothing runs before the host signals the head of the chain");
            s.signal(1);
            s.await(n + 1L, Timeout.infinite());
            assertArrayEquals(new int[] {n - 1}, readInts(cell), "the last write was step " + (n - 1));
        }
    }

    /**
     * Whether a buffer can still be read after its device was closed (true for in-process devices);
     * a remote device's server frees everything the device created when it disconnects, so reading
     * then fails with CANCELLED naming the close.
     */
    protected boolean resourcesOutliveTheirDevice() {
        return true;
    }

    @Test
    void closingTheDeviceFailsUnfinishedSubmissionsWithCancelled() {
        require(ASYNC_QUEUE);
        Device other = createDevice();
        try (Semaphore never = other.createSemaphore(0); Semaphore out = other.createSemaphore(0);
                Semaphore chained = other.createSemaphore(0); Buffer buffer = other.allocator().allocateBuffer(
                        dev.ortho.hal.BufferParams.hostLocal(), 64)) {
            other.queueFill(Device.QUEUE_AFFINITY_ANY, SemaphoreList.of(never, 1), SemaphoreList.of(out, 1), buffer,
                    0, 64, 7, 4, 0);
            other.queueBarrier(Device.QUEUE_AFFINITY_ANY, SemaphoreList.of(out, 1), SemaphoreList.of(chained, 1), 0);
            other.close();
            StatusException e = assertStatus(StatusCode.CANCELLED, () -> out.await(1, Timeout.infinite()));
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
            assertStatus(StatusCode.CANCELLED, () -> chained.await(1, Timeout.infinite()));
            never.signal(1); // late signals find nothing to run
            if (resourcesOutliveTheirDevice()) {
                assertArrayEquals(new int[16], readInts(buffer), "the cancelled fill never ran");
            } else {
                StatusException gone = assertStatus(StatusCode.CANCELLED, () -> readInts(buffer));
                assertTrue(gone.getMessage().contains("closed"), gone.getMessage());
            }
        }
    }

    @Test
    @Tag(MULTI_QUEUE)
    void aFailureTravelsDownAChainAcrossQueues() {
        require(MULTI_QUEUE);
        try (Semaphore head = device.createSemaphore(0); Semaphore mid = device.createSemaphore(0);
                Semaphore tail = device.createSemaphore(0)) {
            device.queueBarrier(Q1, SemaphoreList.of(head, 1), SemaphoreList.of(mid, 1), 0);
            device.queueBarrier(Q2, SemaphoreList.of(mid, 1), SemaphoreList.of(tail, 1), 0);
            head.fail(new StatusException(StatusCode.DATA_LOSS, "producer lost its input"));
            StatusException e = assertStatus(StatusCode.DATA_LOSS, () -> tail.await(1, Timeout.infinite()));
            assertTrue(e.getMessage().contains("producer lost its input"), e.getMessage());
        }
    }
}
