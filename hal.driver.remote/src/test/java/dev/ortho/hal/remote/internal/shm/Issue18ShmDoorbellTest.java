package dev.ortho.hal.remote.internal.shm;

import static dev.ortho.hal.remote.internal.transport.ThreadRecordingInbox.frame;
import static dev.ortho.hal.remote.internal.transport.ThreadRecordingInbox.seed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.remote.internal.transport.HangGuard;
import dev.ortho.hal.remote.internal.transport.ThreadRecordingInbox;
import dev.ortho.hal.remote.internal.transport.Transport;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Issue 18: a side of the shared-memory transport that ran out of spinning sleeps on the
 * {@link Doorbell} and is woken by the peer's ring, never by a timer. Every transport here has a
 * tick (the only timer any sleep still has) of an hour, so a wake-up that were left to a timer
 * would hang the test until its 60 s guard: each test fails by mechanism, not by timing. The
 * peers delay their replies (by parking) only so that the spin window surely runs out first; the
 * transports' sleep counts show that the doorbell path ran.
 */
class Issue18ShmDoorbellTest {
    private static final long HOUR = TimeUnit.HOURS.toNanos(1);
    private static final int MAX_FRAME = 1 << 20;
    private static final long DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(20); // ≫ the ~130 µs spin

    private static MailboxTransport transport(Mailbox mailbox, Doorbell bell, boolean parent, String name) {
        return new MailboxTransport(mailbox, bell, parent, () -> true, name, MAX_FRAME, () -> { }, HOUR);
    }

    private static ByteBuffer reframe(ByteBuffer body) {
        ByteBuffer copy = ByteBuffer.allocate(4 + body.remaining()).order(ByteOrder.LITTLE_ENDIAN);
        return copy.putInt(body.remaining()).put(body).flip();
    }

    /** A peer that echoes every frame after {@link #DELAY_NANOS}, and then sends {@code extra} more frames later. */
    private static MailboxTransport slowEcho(Mailbox mailbox, Doorbell bell, int extra) {
        MailboxTransport[] self = new MailboxTransport[1];
        self[0] = transport(mailbox, bell, false, "slow echo");
        self[0].start(new Transport.Listener() {
            @Override
            public void onFrame(ByteBuffer body) {
                ByteBuffer echo = reframe(body);
                int seed = seed(body.duplicate());
                LockSupport.parkNanos(DELAY_NANOS);
                self[0].send(echo);
                if (extra > 0) {
                    Thread.ofPlatform().start(() -> {
                        for (int i = 1; i <= extra; i++) {
                            LockSupport.parkNanos(DELAY_NANOS);
                            self[0].send(frame(seed + 100 * i));
                        }
                    });
                }
            }

            @Override
            public void onClosed(StatusException reason) {
            }
        });
        return self[0];
    }

    /**
     * Runs {@code receiveWhile(waiting, never)} on a thread of its own as the product's callers
     * do: again while it answers false at once (the pump held the receiving role for a moment,
     * which its contract allows) and {@code waiting} still holds on an open transport; the future
     * completes with whether any call received.
     */
    private static CompletableFuture<Boolean> receiving(MailboxTransport client, BooleanSupplier waiting) {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        Thread.ofPlatform().name("receiving caller").start(() -> {
            try {
                boolean received = client.receiveWhile(waiting, Long.MAX_VALUE);
                while (!received && waiting.getAsBoolean() && client.isOpen()) {
                    refusals.incrementAndGet();
                    Thread.onSpinWait();
                    received = client.receiveWhile(waiting, Long.MAX_VALUE);
                }
                done.complete(received);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        });
        return done;
    }

    /** How often {@link #receiving} found the role held and tried again (all tests of this class). */
    private static final java.util.concurrent.atomic.AtomicInteger refusals = new java.util.concurrent.atomic.AtomicInteger();

    /**
     * A client transport over an in-memory mailbox and pipe doorbell, and (unless {@code extra} is
     * negative) a {@link #slowEcho} peer sending {@code extra} more frames after each echo.
     */
    private static final class Link implements AutoCloseable {
        final Mailbox mailbox = Mailbox.inMemory(4096, new byte[0]);
        final Doorbell[] bells = Doorbell.pipes();
        final MailboxTransport peer;
        final ThreadRecordingInbox inbox = new ThreadRecordingInbox();
        final MailboxTransport client = transport(mailbox, bells[0], true, "client");

        Link(int extra) {
            peer = extra < 0 ? null : slowEcho(mailbox, bells[1], extra);
            client.start(inbox);
        }

        @Override
        public void close() {
            for (MailboxTransport t : new MailboxTransport[] {client, peer}) {
                if (t != null) {
                    t.close(new StatusException(StatusCode.CANCELLED, "test done"));
                }
            }
            mailbox.close();
            bells[0].close();
            bells[1].close();
        }
    }

    /**
     * Spin lengths: a wait that needed a ring quarters the next spin down to the minimum, one that
     * spinning satisfied doubles it; and after PROBE_AFTER rung waits in a row the next wait spins
     * the whole window once, so two sides stuck on short spins (each asleep before the other
     * answers, no spin ever satisfied) find the fast path again (measured on an idle machine:
     * p50 27 µs per round trip without the probe after a cold start, 1–3 µs with it).
     */
    @Test
    void shortSpinsProbeTheWholeWindowAfterARunOfRungWaits() {
        int max = MailboxTransport.SPINS;
        int spins = max;
        for (int rung = 1; rung < MailboxTransport.PROBE_AFTER; rung++) {
            spins = MailboxTransport.adapt(spins, spins, true, max, rung);
        }
        assertEquals(MailboxTransport.MIN_SPINS, spins, "rung waits shrink the spin to the minimum");
        spins = MailboxTransport.adapt(spins, spins, true, max, MailboxTransport.PROBE_AFTER);
        assertEquals(max, spins, "the next wait after a run of rung ones spins the whole window");
        assertEquals(max, MailboxTransport.adapt(spins, 10, false, max, 0), "a satisfied probe keeps the window");
        assertEquals(max / 4, MailboxTransport.adapt(max, max, true, max, MailboxTransport.PROBE_AFTER + 1),
                "a failed probe shrinks again");
        assertEquals(2 * MailboxTransport.MIN_SPINS, MailboxTransport.adapt(MailboxTransport.MIN_SPINS, 5, false, max, 0),
                "a wait spinning satisfied doubles the spin");
    }

    @Test
    void aCallerThatRanOutOfSpinningIsWokenByTheRepliesRing() throws Exception {
        try (Link link = new Link(0)) {
            awaitAsleep(link.peer);
            for (int i = 1; i <= 5; i++) {
                link.client.send(frame(i));
                receiving(link.client, link.inbox.frames::isEmpty).get(60, TimeUnit.SECONDS);
                assertEquals(i, seed(link.inbox.next()));
            }
            assertTrue(link.client.callerSleeps() > 0, "the caller slept on the doorbell");
            assertTrue(link.client.isOpen());
        }
    }

    @Test
    void sleepingPumpsAreWokenByTheFirstBlockAndItsReply() throws Exception {
        try (Link link = new Link(0)) {
            awaitAsleep(link.peer);
            awaitAsleep(link.client);
            link.client.send(frame(7)); // nobody receives on the caller's thread: the client's pump delivers
            assertEquals(7, seed(link.inbox.next()));
            assertFalse(link.inbox.threads.contains(Thread.currentThread()));
        }
    }

    @Test
    void aCallerLeavingHandsTheRingsBackToThePump() throws Exception {
        try (Link link = new Link(2)) { // the echo, then two frames nobody waits for
            awaitAsleep(link.client); // the pump sleeps, announced, before the caller comes
            link.client.send(frame(1));
            receiving(link.client, link.inbox.frames::isEmpty).get(60, TimeUnit.SECONDS);
            assertEquals(1, seed(link.inbox.next()));
            // the caller left; the pump, asleep un-rung while it received, must be rung for these
            assertEquals(101, seed(link.inbox.next()));
            assertEquals(201, seed(link.inbox.next()));
        }
    }

    /**
     * The interleaving the single-call helper missed (a CI run's "the caller never slept" after
     * 60 s): the pump holds the receiving role (here: it is delivering a frame to a listener that
     * blocks) when the caller comes, so receiveWhile answers false at once, and a caller that
     * does not try again never sleeps. The helper tries again, as RemoteConnection's and
     * RemoteSemaphore's callers wait on, and sleeps once the pump lets go of the role.
     */
    @Test
    void aCallerThatFindsThePumpReceivingTriesAgainAndSleeps() throws Exception {
        Mailbox mailbox = Mailbox.inMemory(4096, new byte[0]);
        Doorbell[] bells = Doorbell.pipes();
        CompletableFuture<Void> delivering = new CompletableFuture<>();
        CompletableFuture<Void> release = new CompletableFuture<>();
        ThreadRecordingInbox inbox = new ThreadRecordingInbox();
        MailboxTransport client = transport(mailbox, bells[0], true, "client");
        MailboxTransport peer = slowEcho(mailbox, bells[1], 0);
        client.start(new Transport.Listener() {
            @Override
            public void onFrame(ByteBuffer body) {
                delivering.complete(null);
                release.join(); // the pump holds the receiving role until the test lets go
                inbox.onFrame(body);
            }

            @Override
            public void onClosed(StatusException reason) {
                inbox.onClosed(reason);
            }
        });
        try {
            client.send(frame(1));
            delivering.get(60, TimeUnit.SECONDS); // nobody else receives: the pump delivers the echo
            assertFalse(client.receiveWhile(() -> true, Long.MAX_VALUE), "the pump holds the role: false at once");
            int before = refusals.get();
            AtomicBoolean hostSignal = new AtomicBoolean();
            CompletableFuture<Boolean> caller = receiving(client, () -> !hostSignal.get());
            HangGuard.await(() -> refusals.get() > before || caller.isDone(), "the caller never came");
            release.complete(null);
            awaitCallerAsleep(client);
            hostSignal.set(true);
            client.wakeReceiver();
            assertTrue(caller.get(60, TimeUnit.SECONDS), "the caller received once the pump let go");
            assertEquals(1, seed(inbox.next()));
        } finally {
            release.complete(null);
            client.close(new StatusException(StatusCode.CANCELLED, "test done"));
            peer.close(new StatusException(StatusCode.CANCELLED, "test done"));
            mailbox.close();
            bells[0].close();
            bells[1].close();
        }
    }

    @Test
    void wakeReceiverEndsASleepingCallersWaitWithoutAFrame() throws Exception {
        try (Link link = new Link(0)) {
            AtomicBoolean hostSignal = new AtomicBoolean();
            CompletableFuture<Boolean> caller = receiving(link.client, () -> !hostSignal.get());
            awaitCallerAsleep(link.client);
            hostSignal.set(true); // what a host signal of the awaited semaphore does
            link.client.wakeReceiver();
            assertTrue(caller.get(60, TimeUnit.SECONDS), "the caller received, then returned when woken");
            assertTrue(link.client.isOpen());
        }
    }

    @Test
    void aPeerWhoseDoorbellClosesFailsASleepingCallerAtOnceWithUnavailable() throws Exception {
        try (Link link = new Link(-1)) {
            CompletableFuture<Boolean> caller = receiving(link.client, link.client::isOpen);
            awaitCallerAsleep(link.client);
            link.bells[1].close(); // what the peer process's death does to its sockets
            assertTrue(caller.get(60, TimeUnit.SECONDS));
            StatusException reason = link.inbox.closed.get(60, TimeUnit.SECONDS);
            assertEquals(StatusCode.UNAVAILABLE, reason.code(), reason.toString());
            assertTrue(reason.getMessage().contains("doorbell"), reason.getMessage());
            assertFalse(link.client.isOpen());
        }
    }

    @Test
    void thePeerIsRungOnlyForWhatItsSleepersWaitFor() {
        Mailbox mailbox = Mailbox.inMemory(4096, new byte[0]);
        try {
            Sleepers parent = new Sleepers(mailbox, true);
            Sleepers child = new Sleepers(mailbox, false);
            assertEquals(0, parent.publish(Mailbox.TO_CHILD, Mailbox.TASK_READY), "nobody sleeps: no ring");
            assertFalse(child.pumpMaySleepUnrung(false));
            child.pumpSleeps();
            assertEquals(Sleepers.RING_PUMP, parent.publish(Mailbox.TO_CHILD, Mailbox.TASK_READY));
            mailbox.soState(Mailbox.TO_PARENT, Mailbox.TASK_READY); // a block of the worker's (TASK_DONE answers one)
            assertEquals(0, parent.publish(Mailbox.TO_PARENT, Mailbox.TASK_DONE),
                    "the worker's pump has nothing queued: consuming its block rings nobody");
            child.pumpAwake();
            assertFalse(child.pumpMaySleepUnrung(true));
            mailbox.soState(Mailbox.TO_PARENT, Mailbox.TASK_READY);
            assertEquals(Sleepers.RING_PUMP, parent.publish(Mailbox.TO_PARENT, Mailbox.TASK_DONE),
                    "bytes queued: the worker's pump waits for its channel");
            child.pumpAwake();
            parent.callerEnters();
            parent.callerSleeps();
            assertEquals(Sleepers.RING_CALLER, child.publish(Mailbox.TO_PARENT, Mailbox.TASK_READY),
                    "a receiving caller asleep: ring it, not the pump");
            parent.callerAwake();
            assertTrue(parent.pumpMaySleepUnrung(false), "a caller receives: the pump sleeps un-rung");
            assertEquals(0, child.publish(Mailbox.TO_PARENT, Mailbox.TASK_READY));
            parent.callerLeaves();
            assertEquals(Sleepers.RING_PUMP, child.publish(Mailbox.TO_PARENT, Mailbox.TASK_READY),
                    "the caller left: its leaving set the un-rung pump's word");
            mailbox.reset();
            assertEquals(0, child.publish(Mailbox.TO_PARENT, Mailbox.TASK_READY), "reset clears the words");
        } finally {
            mailbox.close();
        }
    }

    /** Waits (60 s guard) until the transport's pump went to sleep on its bell at least once. */
    private static void awaitAsleep(MailboxTransport transport) {
        awaitSleeps(transport::pumpSleeps, "the pump");
    }

    /** Waits (60 s guard) until a receiving caller of the transport went to sleep on its bell. */
    private static void awaitCallerAsleep(MailboxTransport transport) {
        awaitSleeps(transport::callerSleeps, "the caller");
    }

    private static void awaitSleeps(java.util.function.IntSupplier sleeps, String who) {
        HangGuard.await(() -> sleeps.getAsInt() > 0, who + " never slept",
                () -> "receiveWhile refusals so far: " + refusals.get());
    }
}
