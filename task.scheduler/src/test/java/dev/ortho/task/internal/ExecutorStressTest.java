package dev.ortho.task.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.task.Executor;
import dev.ortho.task.ExecutorStats;
import dev.ortho.task.Process;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Stress with more workers than the 1–2 of {@code ExecutorTest}: wide compute processes drained
 * by up to eight workers at once, many producers on the immediate list, the wake-tree relay, and
 * shutdown with eight workers busy. Oversubscribing the cores is deliberate (more preemption in
 * the middle of protocols). Iteration counts are bounded; nothing asserts on time.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class ExecutorStressTest {
    private final List<Executor> executors = new ArrayList<>();

    private Executor executor(int workers, long spinNanos) {
        Executor e = Executor.builder().workerCount(workers).spinNanos(spinNanos).name("stress").build();
        executors.add(e);
        return e;
    }

    @AfterEach
    void shutDown() {
        for (Executor e : executors) {
            assertTrue(e.shutdown(Duration.ofSeconds(5)), "clean shutdown");
        }
    }

    private static void await(CountDownLatch latch) throws InterruptedException {
        assertTrue(latch.await(15, TimeUnit.SECONDS), "timed out with " + latch.getCount() + " left");
    }

    /** Budget-8 processes with tiles claimed by a shared counter: every tile runs exactly once. */
    @ParameterizedTest
    @ValueSource(ints = {4, 8})
    void wideComputeProcessesRunEveryTileExactlyOnce(int workers) throws Exception {
        Executor ex = executor(workers, 10_000);
        int tiles = 512;
        int rounds = 100;
        int concurrent = 20;  // more than the 16 slots: placement also goes through overflow
        for (int round = 0; round < rounds; round++) {
            AtomicIntegerArray[] runs = new AtomicIntegerArray[concurrent];
            AtomicLong[] sums = new AtomicLong[concurrent];
            AtomicIntegerArray completions = new AtomicIntegerArray(concurrent);
            CountDownLatch released = new CountDownLatch(concurrent);
            for (int i = 0; i < concurrent; i++) {
                int id = i;
                AtomicIntegerArray run = runs[i] = new AtomicIntegerArray(tiles);
                AtomicLong sum = sums[i] = new AtomicLong();
                AtomicInteger next = new AtomicInteger();
                AtomicInteger finished = new AtomicInteger();
                ex.newProcess("wide" + i, (p, w, r) -> {
                    int t = next.getAndIncrement();
                    if (t >= tiles) {
                        return;  // all claimed; the drainer of the last tile completes
                    }
                    run.incrementAndGet(t);
                    sum.addAndGet(t);
                    if (finished.incrementAndGet() == tiles) {
                        r.complete();
                    } else {
                        r.didWork();
                    }
                }).wakeBudget(8).onComplete((p, e) -> completions.incrementAndGet(id))
                        .onRelease(p -> released.countDown()).build().schedule();
            }
            await(released);
            for (int i = 0; i < concurrent; i++) {
                assertEquals((long) tiles * (tiles - 1) / 2, sums[i].get(), "tile index sum of process " + i);
                for (int t = 0; t < tiles; t++) {
                    assertEquals(1, runs[i].get(t), "runs of tile " + t + " of process " + i);
                }
                assertEquals(1, completions.get(i), "completions of process " + i);
            }
        }
    }

    /**
     * Four producers each schedule one-shot budget-1 processes while also waking eight shared
     * sleeping processes (re-pushes of the same nodes from several producers at once).
     */
    @ParameterizedTest
    @ValueSource(ints = {4, 8})
    void manyProducersOnTheImmediateListLoseNothing(int workers) throws Exception {
        Executor ex = executor(workers, 10_000);
        int producers = 4;
        int perProducer = 25_000;
        int sleepers = 8;
        AtomicIntegerArray completions = new AtomicIntegerArray(producers * perProducer);
        CountDownLatch oneShots = new CountDownLatch(producers * perProducer);
        List<ConcurrentLinkedQueue<Integer>> inboxes = new ArrayList<>();
        AtomicInteger consumed = new AtomicInteger();
        Process[] queues = new Process[sleepers];
        for (int s = 0; s < sleepers; s++) {
            ConcurrentLinkedQueue<Integer> inbox = new ConcurrentLinkedQueue<>();
            inboxes.add(inbox);
            queues[s] = ex.newProcess("sleeper" + s, (p, w, r) -> {
                if (inbox.poll() != null) {
                    consumed.incrementAndGet();
                    r.didWork();
                }
            }).build();  // never completes by itself: sleeps when its inbox is empty
        }
        Thread[] threads = new Thread[producers];
        for (int t = 0; t < producers; t++) {
            int base = t * perProducer;
            threads[t] = new Thread(() -> {
                for (int i = 0; i < perProducer; i++) {
                    int id = base + i;
                    ex.newProcess("one" + id, (p, w, r) -> r.complete()).onComplete((p, e) -> {
                        completions.incrementAndGet(id);
                        oneShots.countDown();
                    }).build().schedule();
                    if ((i & 7) == 0) {
                        int s = (id >>> 3) % sleepers;
                        inboxes.get(s).add(id);
                        queues[s].schedule();
                    }
                }
            }, "producer-" + t);
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        await(oneShots);
        int expectedItems = producers * (perProducer / 8);
        while (consumed.get() < expectedItems) {
            Thread.sleep(1);  // bounded by the class @Timeout; a lost wake-up hangs here
        }
        for (int i = 0; i < producers * perProducer; i++) {
            assertEquals(1, completions.get(i), "completions of process " + i);
        }
        assertEquals(expectedItems, consumed.get());
        for (Process q : queues) {
            q.cancel();
        }
    }

    /**
     * All workers parked, then one budget-N process: the scheduling thread posts to at most
     * {@link Tuning#DIRECT_WAKE_LIMIT} workers, so the others can only be reached through the
     * wake tree. The process keeps every drainer busy until each worker has drained it once, so
     * a relay that wakes too few workers hangs the test; the stats show each worker was woken.
     */
    @ParameterizedTest
    @ValueSource(ints = {4, 8})
    void wakeTreeWakesEveryParkedWorker(int workers) throws Exception {
        assertTrue(Tuning.DIRECT_WAKE_LIMIT < workers, "the relay must be needed");
        Executor ex = executor(workers, 1_000);
        int allBits = (1 << workers) - 1;
        for (int round = 0; round < 5; round++) {
            awaitAllParked(ex);
            long[] wakesBefore = wakes(ex);
            AtomicInteger seen = new AtomicInteger();
            CountDownLatch released = new CountDownLatch(1);
            ex.newProcess("wide", (p, w, r) -> {
                int bit = 1 << w.workerIndex();
                if ((seen.getAndUpdate(m -> m | bit) | bit) == allBits) {
                    r.complete();
                } else {
                    r.keepActive();
                    Thread.yield();  // let the relayed workers get a core
                }
            }).wakeBudget(workers).onRelease(p -> released.countDown()).build().schedule();
            await(released);
            assertEquals(allBits, seen.get());
            long[] wakesAfter = wakes(ex);
            for (int i = 0; i < workers; i++) {
                assertTrue(wakesAfter[i] > wakesBefore[i], "worker " + i + " was never woken");
            }
        }
    }

    private static void awaitAllParked(Executor ex) throws InterruptedException {
        while (true) {
            boolean all = true;
            for (ExecutorStats.WorkerStats w : ex.stats().workers()) {
                all &= w.state().equals("PARKED");
            }
            if (all) {
                return;
            }
            Thread.sleep(1);  // bounded by the class @Timeout
        }
    }

    private static long[] wakes(Executor ex) {
        return ex.stats().workers().stream().mapToLong(ExecutorStats.WorkerStats::wakes).toArray();
    }

    /** Eight busy workers, sleepers, a suspended chain and a producer racing the shutdown. */
    @Test
    void shutdownWithEightWorkersAndWorkInFlight() throws Exception {
        Set<Thread> before = workerThreads();
        Executor ex = Executor.builder().workerCount(8).spinNanos(5_000).name("shut8").build();
        Set<Thread> mine = workerThreads();
        mine.removeAll(before);
        assertEquals(8, mine.size());
        AtomicInteger built = new AtomicInteger();
        AtomicInteger completions = new AtomicInteger();
        AtomicInteger cancelled = new AtomicInteger();
        AtomicInteger doubleCompletions = new AtomicInteger();
        Process.CompletionCallback count = (p, e) -> {
            completions.incrementAndGet();
            if (e != null && e.code() == StatusCode.CANCELLED) {
                cancelled.incrementAndGet();
            }
        };
        CountDownLatch busy = new CountDownLatch(8);
        AtomicIntegerArray busyWorkers = new AtomicIntegerArray(8);
        for (int i = 0; i < 4; i++) {
            built.incrementAndGet();
            ex.newProcess("spin" + i, (p, w, r) -> {
                if (busyWorkers.getAndSet(w.workerIndex(), 1) == 0) {
                    busy.countDown();
                }
                r.didWork();
                Thread.yield();
            }).wakeBudget(8).onComplete(count).build().schedule();
        }
        for (int i = 0; i < 50; i++) {
            built.incrementAndGet();
            ex.newProcess("sleep" + i, (p, w, r) -> { }).onComplete(count).build().schedule();
        }
        Process head = ex.newProcess("chain-head", (p, w, r) -> r.didWork()).wakeBudget(2)
                .onComplete(count).build();
        built.incrementAndGet();
        Process last = head;
        for (int i = 0; i < 100; i++) {
            Process d = ex.newProcess("chain" + i, (p, w, r) -> r.complete()).onComplete(count).build();
            built.incrementAndGet();
            last.addDependent(d);
            last = d;
        }
        head.schedule();
        CountDownLatch producing = new CountDownLatch(1);
        Thread producer = new Thread(() -> {
            for (int i = 0; ; i++) {
                AtomicInteger once = new AtomicInteger();
                Process p;
                try {
                    p = ex.newProcess("late" + i, (proc, w, r) -> r.complete()).wakeBudget(1 + i % 3)
                            .onComplete((proc, e) -> {
                                if (once.incrementAndGet() > 1) {
                                    doubleCompletions.incrementAndGet();
                                }
                                count.onComplete(proc, e);
                            }).build();
                } catch (StatusException e) {
                    return;  // FAILED_PRECONDITION: the executor is shutting down
                }
                built.incrementAndGet();
                p.schedule();
                producing.countDown();
            }
        }, "late-producer");
        producer.start();
        await(busy);
        await(producing);
        assertTrue(ex.shutdown(Duration.ofSeconds(10)), "clean shutdown");
        producer.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(producer.isAlive());
        assertEquals(built.get(), completions.get(), "every built process completed");
        assertEquals(0, doubleCompletions.get());
        assertTrue(cancelled.get() >= 4 + 50 + 101, "in-flight work was cancelled: " + cancelled.get());
        for (Thread t : mine) {
            assertFalse(t.isAlive(), "leaked " + t.getName());
        }
        for (ExecutorStats.WorkerStats w : ex.stats().workers()) {
            assertEquals("EXITED", w.state());
        }
    }

    private static Set<Thread> workerThreads() {
        Set<Thread> out = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("ortho-worker-") && t.isAlive()) {
                out.add(t);
            }
        }
        return out;
    }
}
