package dev.ortho.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 20, unit = TimeUnit.SECONDS)
class QueueProcessTest {
    private final List<Executor> executors = new ArrayList<>();

    private Executor executor(long spinNanos) {
        Executor e = Executor.builder().workerCount(2).spinNanos(spinNanos).build();
        executors.add(e);
        return e;
    }

    @AfterEach
    void shutDown() {
        for (Executor e : executors) {
            assertTrue(e.shutdown(Duration.ofSeconds(5)), "clean shutdown");
        }
    }

    /** Completion probe: the callback's error and how often it ran. */
    static final class Done implements Process.CompletionCallback {
        final CountDownLatch latch = new CountDownLatch(1);
        final AtomicInteger calls = new AtomicInteger();
        final AtomicReference<StatusException> error = new AtomicReference<>();

        @Override
        public void onComplete(Process process, StatusException e) {
            error.set(e);
            calls.incrementAndGet();
            latch.countDown();
        }

        void await() throws InterruptedException {
            assertTrue(latch.await(10, TimeUnit.SECONDS), "queue process did not complete");
        }
    }

    /** Records runs and abandons of one numbered item. */
    static final class Recorder {
        final AtomicIntegerArray runs;
        final AtomicIntegerArray abandons;
        final List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        final AtomicReference<StatusException> reason = new AtomicReference<>();

        Recorder(int n) {
            runs = new AtomicIntegerArray(n);
            abandons = new AtomicIntegerArray(n);
        }

        QueueProcess.Item item(int id) {
            return new QueueProcess.Item() {
                @Override
                public void run(WorkerContext worker) {
                    runs.incrementAndGet(id);
                    order.add(id);
                }

                @Override
                public void abandon(StatusException r) {
                    abandons.incrementAndGet(id);
                    reason.set(r);
                }
            };
        }
    }

    /** A process that holds {@code queue} suspended until {@link Process#schedule()} is called on it. */
    private static Process gate(Executor ex, QueueProcess queue) {
        Process gate = ex.newProcess("gate", (p, w, r) -> r.complete()).build();
        gate.addDependent(queue.process());
        return gate;
    }

    @Test
    void itemsRunOnceInSubmissionOrderAndCloseCompletes() throws Exception {
        Executor ex = executor(10_000);
        Done done = new Done();
        QueueProcess q = ex.newQueueProcess("q").itemsPerDrain(7).onComplete(done).build();
        int n = 20_000;
        Recorder rec = new Recorder(n);
        for (int i = 0; i < n; i++) {
            assertTrue(q.submit(rec.item(i)));
        }
        q.close();
        done.await();
        assertNull(done.error.get());
        assertEquals(1, done.calls.get());
        assertEquals(Process.State.COMPLETED, q.process().state());
        assertEquals(n, rec.order.size());
        for (int i = 0; i < n; i++) {
            assertEquals(i, rec.order.get(i), "item order");
            assertEquals(0, rec.abandons.get(i));
        }
    }

    @Test
    void concurrentProducersEveryItemRunsExactlyOnce() throws Exception {
        Executor ex = executor(10_000);
        Done done = new Done();
        QueueProcess q = ex.newQueueProcess("q").onComplete(done).build();
        int producers = 4;
        int each = 5_000;
        Recorder rec = new Recorder(producers * each);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < producers; t++) {
            int base = t * each;
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < each; i++) {
                    assertTrue(q.submit(rec.item(base + i)));
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        q.close();
        done.await();
        int[] lastOfProducer = new int[producers];
        java.util.Arrays.fill(lastOfProducer, -1);
        for (int id : rec.order) {
            int producer = id / each;
            assertTrue(id > lastOfProducer[producer], "one producer's items run in its order");
            lastOfProducer[producer] = id;
        }
        for (int i = 0; i < producers * each; i++) {
            assertEquals(1, rec.runs.get(i), "runs of item " + i);
        }
    }

    @Test
    void aSleepingQueueWakesOnTheNextSubmit() throws Exception {
        Executor ex = executor(0);
        QueueProcess q = ex.newQueueProcess("q").build();
        for (int round = 0; round < 3; round++) {
            CountDownLatch ran = new CountDownLatch(1);
            q.submit(w -> ran.countDown());
            assertTrue(ran.await(10, TimeUnit.SECONDS), "item ran");
            WorkerStates.awaitAll(ex, "PARKED");  // the queue process is asleep, not polling
            assertEquals(Process.State.RUNNABLE, q.process().state());
        }
        q.close();
    }

    @Test
    void submitAfterCloseIsRefusedAndAbandonedOnTheCaller() throws Exception {
        Executor ex = executor(10_000);
        Done done = new Done();
        QueueProcess q = ex.newQueueProcess("late").onComplete(done).build();
        q.close();
        done.await();
        Recorder rec = new Recorder(1);
        assertFalse(q.submit(rec.item(0)));
        assertEquals(1, rec.abandons.get(0));
        assertEquals(0, rec.runs.get(0));
        assertEquals(StatusCode.FAILED_PRECONDITION, rec.reason.get().code());
        assertTrue(rec.reason.get().getMessage().contains("'late'"), rec.reason.get().getMessage());
    }

    @Test
    void aThrowingItemFailsTheQueueAndTheRestAreAbandoned() throws Exception {
        Executor ex = executor(10_000);
        Done done = new Done();
        QueueProcess q = ex.newQueueProcess("q").itemsPerDrain(2).onComplete(done).build();
        Process gate = gate(ex, q);
        int n = 10;
        Recorder rec = new Recorder(n);
        StatusException boom = new StatusException(StatusCode.DATA_LOSS, "item 3 failed");
        for (int i = 0; i < n; i++) {
            int id = i;
            QueueProcess.Item recorded = rec.item(i);
            q.submit(new QueueProcess.Item() {
                @Override
                public void run(WorkerContext worker) {
                    recorded.run(worker);
                    if (id == 3) {
                        throw boom;
                    }
                }

                @Override
                public void abandon(StatusException reason) {
                    recorded.abandon(reason);
                }
            });
        }
        gate.schedule();
        done.await();
        assertSame(boom, done.error.get());
        assertSame(boom, q.process().error());
        for (int i = 0; i < n; i++) {
            assertEquals(i <= 3 ? 1 : 0, rec.runs.get(i), "runs of " + i);
            assertEquals(i <= 3 ? 0 : 1, rec.abandons.get(i), "abandons of " + i);
        }
        assertSame(boom, rec.reason.get());
        Recorder late = new Recorder(1);
        assertFalse(q.submit(late.item(0)));
        assertSame(boom, late.reason.get());
    }

    @Test
    void cancelAbandonsQueuedItemsOnce() throws Exception {
        Executor ex = executor(10_000);
        Done done = new Done();
        QueueProcess q = ex.newQueueProcess("q").onComplete(done).build();
        gate(ex, q);  // never scheduled: the queue stays suspended with its items
        Recorder rec = new Recorder(5);
        for (int i = 0; i < 5; i++) {
            assertTrue(q.submit(rec.item(i)));
        }
        q.process().cancel();
        done.await();
        assertEquals(StatusCode.CANCELLED, done.error.get().code());
        for (int i = 0; i < 5; i++) {
            assertEquals(0, rec.runs.get(i));
            assertEquals(1, rec.abandons.get(i));
        }
        q.process().cancel();
        assertEquals(1, done.calls.get());
    }

    @Test
    void shutdownAbandonsPendingItems() throws Exception {
        Executor ex = Executor.builder().workerCount(2).spinNanos(0).build();
        Done done = new Done();
        QueueProcess q = ex.newQueueProcess("q").onComplete(done).build();
        gate(ex, q);
        Recorder rec = new Recorder(3);
        for (int i = 0; i < 3; i++) {
            q.submit(rec.item(i));
        }
        assertTrue(ex.shutdown(Duration.ofSeconds(5)));
        done.await();
        for (int i = 0; i < 3; i++) {
            assertEquals(1, rec.abandons.get(i));
        }
        assertEquals(StatusCode.CANCELLED, rec.reason.get().code());
        assertThrows(StatusException.class, () -> ex.newQueueProcess("after").build());
    }

    @Test
    void wakeBudgetIsFixedAtOne() {
        Executor ex = executor(10_000);
        QueueProcess q = ex.newQueueProcess("fixed").build();
        StatusException e = assertThrows(StatusException.class, () -> q.process().setWakeBudget(2));
        assertEquals(StatusCode.FAILED_PRECONDITION, e.code());
        assertTrue(e.getMessage().contains("'fixed'"), e.getMessage());
        q.process().setWakeBudget(1);
        assertEquals(1, q.process().wakeBudget());
        StatusException bad = assertThrows(StatusException.class, () -> ex.newQueueProcess("q").itemsPerDrain(0));
        assertEquals(StatusCode.INVALID_ARGUMENT, bad.code());
        q.close();
    }

    @Test
    void aDependentQueueRunsItsItemsAfterItsUpstream() throws Exception {
        Executor ex = executor(10_000);
        Done done = new Done();
        QueueProcess q = ex.newQueueProcess("q").onComplete(done).build();
        AtomicInteger upstreamRan = new AtomicInteger();
        Process upstream = ex.newProcess("up", (p, w, r) -> {
            upstreamRan.incrementAndGet();
            r.complete();
        }).build();
        upstream.addDependent(q.process());
        AtomicInteger seen = new AtomicInteger(-1);
        q.submit(w -> seen.set(upstreamRan.get()));
        upstream.schedule();
        q.close();
        done.await();
        assertEquals(1, seen.get());
    }
}
