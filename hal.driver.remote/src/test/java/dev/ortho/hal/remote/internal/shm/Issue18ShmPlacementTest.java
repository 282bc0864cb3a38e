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
 * whose client caller and worker pump ran on one CPU (bench/README.md). A client's receiving
 * caller names its CPU in the mailbox while it receives; a worker's pump that finds itself on
 * that CPU moves to another without being pinned, unless the user pinned it ({@code worker_cpus}).
 * Here the test plays the caller by writing the word itself. Nothing is timed.
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
            client.start(inbox);
        }

        /** Sends one frame to the worker and waits until its pump handled it. */
        void exchange(int seed) {
            int before = frames.get();
            client.send(frame(seed));
            HangGuard.await(() -> frames.get() > before, "the worker's pump took frame " + seed, this::state);
        }

        String state() {
            return worker.diagnostics() + "; " + client.diagnostics() + "; caller CPU " + mailbox.lvCallerCpu()
                    + ", pump CPU " + pumpCpu.get();
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
            for (int seed = 1; link.worker.movesOffCaller() == 0; seed++) {
                // the caller says it runs where the pump ran last (the scheduler may move the pump meanwhile: then again)
                link.mailbox.soCallerCpu(link.pumpCpu.get());
                link.exchange(seed);
                if (seed > 1_000) {
                    HangGuard.expired("the pump never moved off the caller's CPU", link::state);
                }
            }
            link.mailbox.soCallerCpu(-1);
            link.exchange(1_000_000); // handled after the move
            assertEquals(allowed, link.pumpMask.get(), "the moved pump may still use every CPU (not pinned): "
                    + link.state());
        }
    }

    @Test
    void aPumpStaysWhileNoCallerNamesItsCpu() {
        twoOrMoreCpus();
        try (Link link = new Link(0)) {
            link.exchange(0);
            for (int seed = 1; seed <= 50; seed++) {
                link.mailbox.soCallerCpu(-1); // no caller receives
                link.exchange(seed);
            }
            assertEquals(0, link.worker.movesOffCaller(), link.state());
        }
    }

    @Test
    void aPumpTheUserPinnedNeverMoves() {
        long cpu = Long.lowestOneBit(twoOrMoreCpus());
        try (Link link = new Link(cpu)) {
            for (int seed = 0; seed <= 50; seed++) {
                link.mailbox.soCallerCpu(Long.numberOfTrailingZeros(cpu)); // the caller on the pump's one CPU
                link.exchange(seed);
            }
            assertEquals(0, link.worker.movesOffCaller(), link.state());
            assertEquals(cpu, link.pumpMask.get(), "the pump keeps to worker_cpus");
        }
    }

    @Test
    void aReceivingCallerNamesItsCpuAndClearsItWhenItLeaves() throws Exception {
        twoOrMoreCpus();
        try (Link link = new Link(0)) {
            AtomicInteger named = new AtomicInteger(-2);
            boolean[] asked = {false};
            // the condition runs on the caller's thread inside receiveWhile: it reads what the caller published
            while (!link.client.receiveWhile(() -> {
                named.set(link.mailbox.lvCallerCpu());
                asked[0] = true;
                return false;
            }, Long.MAX_VALUE) || !asked[0]) {
                Thread.onSpinWait(); // the client's pump held the receiving role a moment
            }
            assertTrue(named.get() >= 0, "while receiving, the caller names a CPU: " + named.get());
            assertEquals(-1, link.mailbox.lvCallerCpu(), "a caller that left names none");
            // the worker's side never names one: only a client's caller does
            named.set(-2);
            while (!link.worker.receiveWhile(() -> {
                named.set(link.mailbox.lvCallerCpu());
                return false;
            }, Long.MAX_VALUE)) {
                Thread.onSpinWait(); // the worker's pump held the receiving role a moment
            }
            assertEquals(-1, named.get());
        }
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
