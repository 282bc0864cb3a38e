package dev.ortho.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.Deadline;
import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 18: reusable processes ({@link Process.Builder#reusable()}, {@link Process#rearm()}):
 * a chain built once runs many times with no process or builder per run.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ReusableProcessTest {
    private final List<Executor> executors = new ArrayList<>();

    private Executor executor(int workers) {
        Executor e = Executor.builder().workerCount(workers).spinNanos(10_000).build();
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
        assertTrue(latch.await(10, TimeUnit.SECONDS), "timed out");
    }

    /** A chain of reusable links; each run records the order of drains and waits for every release. */
    private static final class Chain {
        final Process[] links;
        final ConcurrentLinkedQueue<Integer> order = new ConcurrentLinkedQueue<>();
        final AtomicInteger completions = new AtomicInteger();
        final AtomicReference<StatusException> error = new AtomicReference<>();
        volatile CountDownLatch released;
        final AtomicInteger releases = new AtomicInteger();

        /** Per link: tiles claimed and tiles finished in this run (the owner resets them between runs). */
        final AtomicInteger[] claimed;
        final AtomicInteger[] finished;

        Chain(Executor ex, int n, int budget) {
            links = new Process[n];
            claimed = new AtomicInteger[n];
            finished = new AtomicInteger[n];
            for (int i = 0; i < n; i++) {
                int id = i;
                AtomicInteger claim = claimed[i] = new AtomicInteger();
                AtomicInteger done = finished[i] = new AtomicInteger();
                links[i] = ex.newProcess("link" + i, (p, w, r) -> {
                    int t = claim.getAndIncrement();
                    if (t >= budget) {
                        return;  // every tile claimed; the worker finishing the last one completes
                    }
                    if (t == 0) {
                        order.add(id);
                    }
                    if (done.incrementAndGet() == budget) {
                        r.complete();
                    } else {
                        r.didWork();
                    }
                }).wakeBudget(budget).reusable().onComplete((p, e) -> {
                    completions.incrementAndGet();
                    if (e != null) {
                        error.compareAndSet(null, e);
                    }
                }).onRelease(p -> {
                    if (releases.incrementAndGet() == n) {
                        released.countDown();
                    }
                }).build();
                if (i > 0) {
                    links[i - 1].addDependent(links[i]);
                }
            }
        }

        void run(boolean rearm) throws InterruptedException {
            order.clear();
            completions.set(0);
            releases.set(0);
            released = new CountDownLatch(1);
            if (rearm) {
                for (int i = 0; i < links.length; i++) {
                    claimed[i].set(0);  // released: no worker is in the drain any more
                    finished[i].set(0);
                    links[i].rearm();
                }
            }
            links[0].schedule();
            await(released);
        }
    }

    @Test
    void aRearmedChainRunsAgainInOrder() throws Exception {
        Executor ex = executor(2);
        Chain chain = new Chain(ex, 20, 1);
        for (int run = 0; run < 200; run++) {
            chain.run(run > 0);
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                expected.add(i);
            }
            assertEquals(expected, new ArrayList<>(chain.order), "run " + run);
            assertEquals(20, chain.completions.get(), "run " + run);
            assertNull(chain.error.get());
            for (Process p : chain.links) {
                assertEquals(Process.State.COMPLETED, p.state());
            }
        }
        assertEquals(0, ex.stats().liveProcesses(), "every run retired");
    }

    @Test
    void aRearmedChainOfComputeProcessesRunsAgain() throws Exception {
        Executor ex = executor(2);
        Chain chain = new Chain(ex, 10, 2);
        for (int run = 0; run < 100; run++) {
            chain.run(run > 0);
            assertEquals(10, chain.completions.get(), "run " + run);
            assertEquals(10, chain.order.size(), "run " + run);
        }
    }

    @Test
    void rearmRestoresTheBuiltCountPlusEdgesAndClearsTheError() throws Exception {
        Executor ex = executor(1);
        AtomicInteger runs = new AtomicInteger();
        AtomicReference<StatusException> seen = new AtomicReference<>();
        CountDownLatch[] released = {new CountDownLatch(1)};
        Process upstream = ex.newProcess("up", (p, w, r) -> r.complete()).reusable()
                .onRelease(p -> { }).build();
        Process p = ex.newProcess("p", (proc, w, r) -> {
            if (runs.incrementAndGet() == 1) {
                throw new StatusException(StatusCode.DATA_LOSS, "first run fails");
            }
            r.complete();
        }).suspendCount(1).wakeBudget(1).reusable().onComplete((proc, e) -> seen.set(e))
                .onRelease(proc -> released[0].countDown()).build();
        upstream.addDependent(p);
        assertEquals(2, p.suspendCount());
        p.signal();
        upstream.schedule();
        await(released[0]);
        assertEquals(StatusCode.DATA_LOSS, seen.get().code());
        assertEquals(StatusCode.DATA_LOSS, p.error().code());

        released[0] = new CountDownLatch(1);
        upstream.rearm();
        p.rearm();
        assertEquals(Process.State.SUSPENDED, p.state());
        assertEquals(2, p.suspendCount(), "built count 1 plus one edge");
        assertNull(p.error());
        p.setWakeBudget(3);
        p.signal();
        upstream.schedule();
        await(released[0]);
        assertNull(seen.get(), "the second run succeeded");
        assertNull(p.error());
        assertEquals(2, runs.get());

        released[0] = new CountDownLatch(1);
        p.rearm();
        assertEquals(1, p.wakeBudget(), "the built budget, not the one set during the last run");
    }

    @Test
    void rearmIsRefusedForOneShotAndUnreleasedProcesses() throws Exception {
        Executor ex = executor(1);
        Process oneShot = ex.newProcess("once", (p, w, r) -> r.complete()).build();
        StatusException e = assertThrows(StatusException.class, oneShot::rearm);
        assertEquals(StatusCode.FAILED_PRECONDITION, e.code());
        assertTrue(e.getMessage().contains("'once'"), e.getMessage());

        Process fresh = ex.newProcess("fresh", (p, w, r) -> r.complete()).reusable().build();
        e = assertThrows(StatusException.class, fresh::rearm);
        assertEquals(StatusCode.FAILED_PRECONDITION, e.code());
        assertEquals(Process.State.SUSPENDED, fresh.state());

        // From the completion callback the run is not released yet; from the release callback it is.
        AtomicReference<Throwable> inCompletion = new AtomicReference<>();
        AtomicReference<Throwable> inRelease = new AtomicReference<>();
        CountDownLatch released = new CountDownLatch(1);
        AtomicInteger drains = new AtomicInteger();
        Process self = ex.newProcess("self", (p, w, r) -> {
            drains.incrementAndGet();
            r.complete();
        }).reusable().onComplete((p, err) -> {
            try {
                p.rearm();
            } catch (Throwable t) {
                inCompletion.set(t);
            }
        }).onRelease(p -> {
            try {
                if (drains.get() == 1) {
                    p.rearm();
                }
            } catch (Throwable t) {
                inRelease.set(t);
            }
            released.countDown();
        }).build();
        self.schedule();
        await(released);
        assertTrue(inCompletion.get() instanceof StatusException s && s.code() == StatusCode.FAILED_PRECONDITION,
                "re-arm from the completion callback: " + inCompletion.get());
        assertNull(inRelease.get(), "re-arm from the release callback is allowed");
        assertEquals(Process.State.SUSPENDED, self.state(), "re-armed from its release callback");
    }

    @Test
    void aRearmedProcessIsLiveAndShutdownCancelsIt() throws Exception {
        Executor ex = Executor.builder().workerCount(1).build();
        AtomicReference<StatusException> seen = new AtomicReference<>();
        AtomicInteger completions = new AtomicInteger();
        CountDownLatch released = new CountDownLatch(1);
        Process p = ex.newProcess("p", (proc, w, r) -> r.complete()).reusable()
                .onComplete((proc, e) -> {
                    seen.set(e);
                    completions.incrementAndGet();
                })
                .onRelease(proc -> released.countDown()).build();
        p.schedule();
        await(released);
        assertEquals(0, ex.stats().liveProcesses());
        p.rearm();
        assertEquals(1, ex.stats().liveProcesses(), "re-armed: live until its run completes");
        assertTrue(ex.shutdown(Duration.ofSeconds(5)), "shutdown cancelled the re-armed run");
        assertEquals(2, completions.get());
        assertEquals(StatusCode.CANCELLED, seen.get().code());
        StatusException e = assertThrows(StatusException.class, p::rearm);
        assertEquals(StatusCode.FAILED_PRECONDITION, e.code());
        assertEquals(2, completions.get(), "a refused re-arm starts no run");
        assertEquals(Process.State.CANCELLED, p.state());
    }

    @Test
    void aRearmedProcessCountsInItsScopeAgain() throws Exception {
        Executor ex = executor(1);
        Scope scope = Scope.create("s", false);
        CountDownLatch[] released = {new CountDownLatch(1)};
        Process p = ex.newProcess("p", (proc, w, r) -> r.complete()).reusable().scope(scope)
                .onRelease(proc -> released[0].countDown()).build();
        assertEquals(1, scope.pendingCount());
        p.schedule();
        await(released[0]);
        assertEquals(0, scope.pendingCount());
        released[0] = new CountDownLatch(1);
        p.rearm();
        assertEquals(1, scope.pendingCount());
        p.schedule();
        assertTrue(scope.waitIdle(Deadline.INFINITE_FUTURE_NANOS));
        await(released[0]);
        assertSame(null, scope.firstError());
    }
}
