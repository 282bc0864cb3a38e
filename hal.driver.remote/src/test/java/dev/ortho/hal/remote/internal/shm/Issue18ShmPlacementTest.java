package dev.ortho.hal.remote.internal.shm;

import static dev.ortho.hal.remote.internal.transport.ThreadRecordingInbox.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.remote.internal.transport.HangGuard;
import dev.ortho.hal.remote.internal.transport.ThreadRecordingInbox;
import dev.ortho.hal.remote.internal.transport.Transport;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Issue 18, the shared-memory tail on a quiet machine: the round trips over 20 µs were those
 * whose client caller and worker pump ran on one CPU (bench/README.md). A client's thread that
 * writes a block or waits for one names its CPU in the mailbox; a worker's pump that finds itself
 * on that CPU moves to another without being pinned, unless the user pinned it
 * ({@code worker_cpus}). The sending test thread is put on the pump's CPU by pinning it (a test's
 * own thread). Nothing is timed.
 */
class Issue18ShmPlacementTest {
    private static final long HOUR = TimeUnit.HOURS.toNanos(1);
    private static final int MAX_FRAME = 1 << 20;

    /** The CPUs this JVM's threads may use; the test needs two and a JVM that can tell and move threads. */
    private static long twoOrMoreCpus() {
        long allowed = Affinity.currentThreadMask();
        assumeTrue(Affinity.currentCpu() >= 0 && Long.bitCount(allowed) >= 2,
                "this JVM cannot tell or move threads between CPUs, or may use only one");
        return allowed;
    }

    /** A worker's transport and a client's over an in-memory mailbox; the worker's listener notes its pump's CPU and CPUs. */
    private static final class Link implements AutoCloseable {
        final Mailbox mailbox = Mailbox.inMemory(4096, new byte[0]);
        final Doorbell[] bells = Doorbell.pipes(mailbox);
        final MailboxTransport worker = new MailboxTransport(mailbox, bells[1], false, () -> true, "worker", MAX_FRAME,
                () -> { }, HOUR);
        final MailboxTransport client = new MailboxTransport(mailbox, bells[0], true, () -> true, "client", MAX_FRAME,
                () -> { }, HOUR);
        final ThreadRecordingInbox inbox = new ThreadRecordingInbox();
        final AtomicInteger frames = new AtomicInteger();
        final AtomicInteger pumpCpu = new AtomicInteger(-1);
        final AtomicLong pumpMask = new AtomicLong();

        Link(long pinWorkerTo) {
            this(pinWorkerTo, true);
        }

        /** @param startClient false: no client pump, so every block the client sends is written by the sending thread */
        Link(long pinWorkerTo, boolean startClient) {
            worker.pinPumpTo(pinWorkerTo);
            worker.start(new Transport.Listener() {
                @Override
                public void onFrame(ByteBuffer body) { // on the worker's pump thread
                    pumpCpu.set(Affinity.currentCpu());
                    pumpMask.set(Affinity.currentThreadMask());
                    frames.incrementAndGet();
                }

                @Override
                public void onClosed(StatusException reason) {
                }
            });
            if (startClient) {
                client.start(inbox);
            }
        }

        /** Sends one frame to the worker and waits until its pump handled it. */
        void exchange(int seed) {
            int before = frames.get();
            client.send(frame(seed));
            HangGuard.await(() -> frames.get() > before, "the worker's pump took frame " + seed, this::state);
        }

        /** {@link #exchange} with the calling thread on {@code cpu} only (then on all of {@code allowed} again). */
        void exchangeFrom(int cpu, long allowed, int seed) {
            assertTrue(Affinity.restrictCurrentThread(1L << cpu), "the test thread moves to CPU " + cpu);
            try {
                exchange(seed);
            } finally {
                assertTrue(Affinity.restrictCurrentThread(allowed));
            }
        }

        String state() {
            return worker.diagnostics() + "; " + client.diagnostics() + "; pump CPU " + pumpCpu.get();
        }

        @Override
        public void close() {
            worker.close(new StatusException(StatusCode.CANCELLED, "test done"));
            client.close(new StatusException(StatusCode.CANCELLED, "test done"));
            mailbox.close();
            bells[0].close();
            bells[1].close();
        }
    }

    @Test
    void aWorkersPumpOnTheCallersCpuMovesOffItAndKeepsAllItsCpus() {
        long allowed = twoOrMoreCpus();
        try (Link link = new Link(0)) {
            link.exchange(0);
            for (int seed = 1; link.worker.movesOffClient() == 0; seed++) {
                // sent from where the pump ran last (the scheduler may move the pump meanwhile: then again)
                link.exchangeFrom(link.pumpCpu.get(), allowed, seed);
                if (seed > 1_000) {
                    HangGuard.expired("the pump never moved off the client's CPU", link::state);
                }
            }
            link.exchange(1_000_000); // handled after the move
            assertEquals(allowed, link.pumpMask.get(), "the moved pump may still use every CPU (not pinned): "
                    + link.state());
        }
    }

    @Test
    void aPumpTheUserPinnedNeverMoves() {
        long allowed = twoOrMoreCpus();
        long cpu = Long.lowestOneBit(allowed);
        try (Link link = new Link(cpu)) {
            for (int seed = 0; seed <= 50; seed++) {
                link.exchangeFrom(Long.numberOfTrailingZeros(cpu), allowed, seed); // from the pump's one CPU
            }
            assertEquals(0, link.worker.movesOffClient(), link.state());
            assertEquals(cpu, link.pumpMask.get(), "the pump keeps to worker_cpus");
        }
    }

    @Test
    void aClientsSendingAndWaitingThreadsNameTheirCpuAWorkersDoNot() {
        long allowed = twoOrMoreCpus();
        int high = Long.numberOfTrailingZeros(Long.highestOneBit(allowed));
        int low = Long.numberOfTrailingZeros(allowed);
        try (Link link = new Link(0, false)) {
            assertEquals(-1, link.mailbox.clientCpu(), "nothing named yet");
            assertTrue(Affinity.restrictCurrentThread(1L << high));
            try {
                link.client.send(frame(1)); // the channel is free and no client pump runs: written by this thread
            } finally {
                assertTrue(Affinity.restrictCurrentThread(allowed));
            }
            assertEquals(high, link.mailbox.clientCpu(), "the client's writer names its CPU");
            HangGuard.await(() -> link.frames.get() == 1, "the worker took the block", link::state);
            assertTrue(Affinity.restrictCurrentThread(1L << low));
            try {
                // the condition runs inside receiveWhile, after the caller named its CPU
                while (!link.client.receiveWhile(() -> false, Long.MAX_VALUE)) {
                    Thread.onSpinWait();
                }
            } finally {
                assertTrue(Affinity.restrictCurrentThread(allowed));
            }
            assertEquals(low, link.mailbox.clientCpu(), "a receiving client caller names its CPU");
            link.mailbox.clientCpu(-1);
            link.worker.send(frame(2));
            HangGuard.await(() -> link.mailbox.lvState(Mailbox.TO_PARENT) == Mailbox.TASK_READY,
                    "the worker wrote its block", link::state);
            while (!link.worker.receiveWhile(() -> false, Long.MAX_VALUE)) {
                Thread.onSpinWait(); // the worker's pump held the receiving role a moment
            }
            assertEquals(-1, link.mailbox.clientCpu(), "a worker's threads name none");
        }
    }

    /**
     * The move policy with made-up clock values: the first move at once, then at least the
     * minimum interval apart; each slow (or failed) move doubles the interval up to the maximum,
     * a cheap one resets it.
     */
    @Test
    void slowMovesBackOffAndACheapOneResets() {
        MoveBackoff b = new MoveBackoff();
        long min = MoveBackoff.MIN_INTERVAL_NANOS;
        long slow = MoveBackoff.SLOW_MOVE_NANOS;
        assertTrue(b.mayMove(0), "the first move at once");
        b.tried(0, slow / 10, true);
        assertEquals(min, b.intervalNanos());
        assertTrue(!b.mayMove(min - 1) && b.mayMove(min), "cheap moves are the minimum interval apart");
        long t = min;
        for (int i = 1; i <= 6; i++) {
            b.tried(t, slow, true);
            assertEquals(Math.min(MoveBackoff.MAX_INTERVAL_NANOS, min << i), b.intervalNanos(), "after " + i + " slow moves");
            assertTrue(!b.mayMove(t + b.intervalNanos() - 1) && b.mayMove(t + b.intervalNanos()));
            t += b.intervalNanos();
        }
        b.tried(t, 0, false);
        assertEquals(MoveBackoff.MAX_INTERVAL_NANOS, b.intervalNanos(), "a failed move counts as slow");
        b.tried(t + MoveBackoff.MAX_INTERVAL_NANOS, slow - 1, true);
        assertEquals(min, b.intervalNanos(), "a cheap move resets the interval");
    }

    @Test
    void anIdleConnectionsPumpsEndUpAsleep() {
        try (Link link = new Link(0)) {
            for (int seed = 0; seed < 1000; seed++) {
                link.exchange(seed);
            }
            // nothing more to do: both pumps spin out and block on their bells (an hour-long tick: they stay there)
            HangGuard.await(() -> link.worker.pumpAsleep() && link.client.pumpAsleep(), "both pumps asleep",
                    link::state);
            int sleeps = link.worker.pumpSleeps() + link.client.pumpSleeps();
            assertTrue(sleeps >= 2, "sleeps " + sleeps);
        }
    }
}
