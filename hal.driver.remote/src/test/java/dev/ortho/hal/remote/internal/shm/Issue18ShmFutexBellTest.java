package dev.ortho.hal.remote.internal.shm;

import static dev.ortho.hal.remote.internal.transport.ThreadRecordingInbox.frame;
import static dev.ortho.hal.remote.internal.transport.ThreadRecordingInbox.seed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.remote.internal.transport.ThreadRecordingInbox;
import dev.ortho.hal.remote.internal.transport.Transport;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18: between processes that both can use Linux futexes the doorbell rings a sequence word
 * in the mailbox ({@link Futex}, FFM), otherwise its Unix-domain sockets. The module's tests run
 * with {@code --enable-native-access=ALL-UNNAMED}, so futexes are available here (Linux CI). The
 * two ends live in this JVM but talk only through the mapped file and the sockets, as a client
 * and its child do. Waits use a 60 s guard or an hour-long tick: a ring that were lost hangs.
 */
class Issue18ShmFutexBellTest {
    private static final long GUARD = TimeUnit.SECONDS.toNanos(60);

    @TempDir
    Path dir;

    /** A mailbox file and both ends of its doorbell, each side saying whether it can use futexes. */
    private static final class Ends implements AutoCloseable {
        final Mailbox mailbox;
        final Doorbell client;
        final Doorbell child;

        Ends(Path dir, boolean clientCan, boolean childCan) {
            Path file = dir.resolve("mailbox");
            mailbox = Mailbox.create(file, 4096, new byte[0]);
            mailbox.soCanFutex(true, clientCan);
            ServerSocketChannel server = Doorbell.listen(file);
            child = Doorbell.connect(file, mailbox); // writes the child's own answer (it can here)
            if (!childCan) {
                // as a child without native access would have said (only the client's end is checked)
                mailbox.soCanFutex(false, false);
            }
            client = Doorbell.accept(server, file, mailbox);
        }

        @Override
        public void close() {
            client.close();
            child.close();
            mailbox.close();
        }
    }

    @Test
    void futexBellsWhereBothSidesCanSocketsOtherwise() {
        assertNotNull(Futex.get(), "futexes are available (Linux, native access enabled for the tests)");
        assertTrue(WorkerPool.PLAIN_JAVA.command(dir.resolve("m"), 4096, "S").contains("--enable-native-access=ALL-UNNAMED"),
                "a child JVM of a JVM that can use futexes can too");
        try (Ends both = new Ends(dir, true, true)) {
            assertTrue(both.client.usesFutex());
            assertTrue(both.child.usesFutex());
        }
        try (Ends clientOnly = new Ends(dir, true, false)) {
            assertFalse(clientOnly.client.usesFutex(), "the child cannot: sockets");
        }
        try (Ends childOnly = new Ends(dir, false, true)) {
            assertFalse(childOnly.client.usesFutex(), "the client cannot: sockets");
            assertFalse(childOnly.child.usesFutex());
        }
    }

    /** The fallback: a socket ring wakes the sleeper, and only a ring says rung. */
    @Test
    void socketBellsRingAcrossTheConnection() {
        try (Ends ends = new Ends(dir, false, true)) {
            assertFalse(ends.child.await(Doorbell.PUMP, ends.child.prepare(Doorbell.PUMP), 1_000_000, "client"));
            ends.client.ring(Doorbell.PUMP);
            assertTrue(ends.child.await(Doorbell.PUMP, ends.child.prepare(Doorbell.PUMP), GUARD, "client"));
        }
    }

    /**
     * A ring between a sleeper's {@link Doorbell#prepare} (before it announces itself and
     * re-checks) and its wait ends the wait at once; so does a local wake-up; an un-rung wait
     * times out and says so.
     */
    @Test
    void aRingAfterPrepareIsKeptForTheWait() {
        try (Ends ends = new Ends(dir, true, true)) {
            int prepared = ends.child.prepare(Doorbell.PUMP);
            assertFalse(ends.child.await(Doorbell.PUMP, prepared, 1_000_000, "client"), "nobody rang: times out");
            ends.client.ring(Doorbell.PUMP);
            assertTrue(ends.child.await(Doorbell.PUMP, prepared, GUARD, "client"), "rung before it waited");
            prepared = ends.child.prepare(Doorbell.CALLER);
            ends.child.wakeup(Doorbell.CALLER);
            assertTrue(ends.child.await(Doorbell.CALLER, prepared, GUARD, "client"), "woken locally before it waited");
            prepared = ends.client.prepare(Doorbell.CALLER);
            ends.child.ring(Doorbell.CALLER);
            assertTrue(ends.client.await(Doorbell.CALLER, prepared, GUARD, "child"), "the other direction");
        }
    }

    @Test
    void aRingWakesABlockedFutexSleeper() throws Exception {
        try (Ends ends = new Ends(dir, true, true)) {
            int prepared = ends.child.prepare(Doorbell.PUMP);
            boolean[] rung = new boolean[1];
            Thread sleeper = Thread.ofPlatform().start(() -> rung[0] = ends.child.await(Doorbell.PUMP, prepared, GUARD,
                    "client"));
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // let it block (not required: a ring is kept)
            ends.client.ring(Doorbell.PUMP);
            sleeper.join(TimeUnit.NANOSECONDS.toMillis(GUARD));
            assertFalse(sleeper.isAlive());
            assertTrue(rung[0]);
        }
    }

    /** THREAD mode: futex bells in the in-memory mailbox, the pipes for closing; plain {@link Doorbell#pipes()} stay pipes. */
    @Test
    void threadModeEndsUseFutexBellsInTheInMemoryMailbox() {
        Mailbox mailbox = Mailbox.inMemory(4096, new byte[0]);
        Doorbell[] ends = Doorbell.pipes(mailbox);
        Doorbell[] plain = Doorbell.pipes();
        try {
            assertTrue(ends[0].usesFutex());
            assertTrue(ends[1].usesFutex());
            assertFalse(plain[0].usesFutex());
            int prepared = ends[0].prepare(Doorbell.CALLER);
            ends[1].ring(Doorbell.CALLER);
            assertTrue(ends[0].await(Doorbell.CALLER, prepared, GUARD, "worker"));
            ends[1].close(); // the pipes' end of stream: the peer is gone
            StatusException e = assertThrows(StatusException.class,
                    () -> ends[0].await(Doorbell.PUMP, ends[0].prepare(Doorbell.PUMP), 1_000_000, "worker"));
            assertEquals(StatusCode.UNAVAILABLE, e.code());
        } finally {
            ends[0].close();
            plain[0].close();
            plain[1].close();
            mailbox.close();
        }
    }

    /** Closing a futex doorbell ends its sleepers' waits at once (a closed selector did that for the sockets). */
    @Test
    void closingAFutexDoorbellWakesItsSleeper() throws Exception {
        try (Ends ends = new Ends(dir, true, true)) {
            int prepared = ends.child.prepare(Doorbell.CALLER);
            Thread sleeper = Thread.ofPlatform().start(() -> {
                try {
                    ends.child.await(Doorbell.CALLER, prepared, TimeUnit.HOURS.toNanos(1), "client");
                } catch (StatusException closed) {
                    // also an end of the wait
                }
            });
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // let it block
            ends.child.close();
            sleeper.join(TimeUnit.NANOSECONDS.toMillis(GUARD));
            assertFalse(sleeper.isAlive(), "the sleeper still waits (hang guard)");
        }
    }

    /**
     * A sleeper blocked on its futex bell does not keep the mailbox mapped: closing it succeeds
     * (a retired worker's mailbox is closed while its client's caller may still sleep; a failed
     * close left the pool without a replacement worker), and the sleeper's wait ends by its
     * timeout with UNAVAILABLE or as un-rung.
     */
    @Test
    void closingTheMailboxUnderAFutexSleeperSucceeds() throws Exception {
        Ends ends = new Ends(dir, true, true);
        try {
            int prepared = ends.child.prepare(Doorbell.PUMP);
            java.util.concurrent.CompletableFuture<Throwable> sleeper = new java.util.concurrent.CompletableFuture<>();
            Thread.ofPlatform().start(() -> {
                try {
                    ends.child.await(Doorbell.PUMP, prepared, TimeUnit.MILLISECONDS.toNanos(200), "client");
                    sleeper.complete(null);
                } catch (Throwable t) {
                    sleeper.complete(t);
                }
            });
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // let it block in the kernel
            ends.mailbox.close(); // the only user: unmaps it
            Throwable t = sleeper.get(60, TimeUnit.SECONDS);
            assertTrue(t == null || t instanceof StatusException s && s.code() == StatusCode.UNAVAILABLE, String.valueOf(t));
        } finally {
            ends.client.close();
            ends.child.close();
        }
    }

    /** The peer's death still ends a futex sleeper's wait with UNAVAILABLE: an un-rung wait reads the socket. */
    @Test
    void aPeerWhoseDoorbellClosesFailsAFutexSleeperWithUnavailable() {
        try (Ends ends = new Ends(dir, true, true)) {
            ends.client.close(); // what the client process's death does to its sockets
            StatusException e = assertThrows(StatusException.class,
                    () -> ends.child.await(Doorbell.PUMP, ends.child.prepare(Doorbell.PUMP), 1_000_000, "client"));
            assertEquals(StatusCode.UNAVAILABLE, e.code());
            assertTrue(e.getMessage().contains("gone"), e.getMessage());
        }
    }

    /**
     * Two transports over futex bells with an hour-long tick: the worker's pump spins out and
     * sleeps, the client's first block must ring it; a caller that spun out must be rung by the reply.
     */
    @Test
    void transportsOverFutexBellsWakeEachOther() throws Exception {
        try (Ends ends = new Ends(dir, true, true)) {
            long hour = TimeUnit.HOURS.toNanos(1);
            MailboxTransport[] worker = new MailboxTransport[1];
            worker[0] = new MailboxTransport(ends.mailbox, ends.child, false, () -> true, "client", 1 << 20, () -> { },
                    hour);
            worker[0].start(new Transport.Listener() {
                @Override
                public void onFrame(ByteBuffer body) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // ≫ the caller's spin
                    ByteBuffer echo = ByteBuffer.allocate(4 + body.remaining()).order(ByteOrder.LITTLE_ENDIAN);
                    worker[0].send(echo.putInt(body.remaining()).put(body).flip());
                }

                @Override
                public void onClosed(StatusException reason) {
                }
            });
            ThreadRecordingInbox inbox = new ThreadRecordingInbox();
            MailboxTransport client = new MailboxTransport(ends.mailbox, ends.client, true, () -> true, "worker",
                    1 << 20, () -> { }, hour);
            client.start(inbox);
            try {
                long guard = System.nanoTime() + GUARD;
                dev.ortho.hal.remote.internal.transport.HangGuard.await(() -> worker[0].pumpSleeps() != 0,
                        "the worker's pump never slept", () -> client.diagnostics() + "\nworker: " + worker[0].diagnostics());
                for (int i = 1; i <= 3; i++) {
                    client.send(frame(i));
                    while (inbox.frames.isEmpty()) {
                        client.receiveWhile(inbox.frames::isEmpty, System.nanoTime() + GUARD);
                        assertTrue(System.nanoTime() < guard + GUARD, "no reply (hang guard)");
                    }
                    assertEquals(i, seed(inbox.next()));
                }
                assertTrue(client.callerSleeps() > 0, "the caller slept on its futex bell");
            } finally {
                client.close(new StatusException(StatusCode.CANCELLED, "test done"));
                worker[0].close(new StatusException(StatusCode.CANCELLED, "test done"));
                client.awaitTermination(GUARD);
                worker[0].awaitTermination(GUARD);
            }
        }
    }
}
