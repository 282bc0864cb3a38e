package dev.ortho.hal.remote.internal.shm;

import static dev.ortho.hal.remote.internal.transport.ThreadRecordingInbox.frame;
import static dev.ortho.hal.remote.internal.transport.ThreadRecordingInbox.seed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.remote.internal.transport.ThreadRecordingInbox;
import dev.ortho.hal.remote.internal.transport.Transport;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 18: over the shared-memory mailbox a sender writes its block itself and a waiting caller
 * receives on its own thread ({@link MailboxTransport#receiveWhile}); two callers never receive at
 * once; a peer that shuts the mailbox down or publishes a bad block while a caller receives
 * closes the transport (UNAVAILABLE / INVALID_ARGUMENT) and the caller returns.
 */
class Issue18ShmCallerReceiveTest {
    private static final long GUARD_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final int MAX_FRAME = 1 << 20;

    /** A peer that echoes every frame it gets. */
    static MailboxTransport echo(Mailbox mailbox, Doorbell bell) {
        MailboxTransport[] self = new MailboxTransport[1];
        self[0] = new MailboxTransport(mailbox, bell, false, () -> true, "echo", MAX_FRAME, () -> { });
        self[0].start(new Transport.Listener() {
            @Override
            public void onFrame(ByteBuffer body) {
                ByteBuffer copy = ByteBuffer.allocate(4 + body.remaining()).order(ByteOrder.LITTLE_ENDIAN);
                copy.putInt(body.remaining()).put(body).flip();
                self[0].send(copy);
            }

            @Override
            public void onClosed(StatusException reason) {
            }
        });
        return self[0];
    }

    @Test
    void repliesArriveOnTheWaitingCallersThreadAndTwoCallersNeverReceiveAtOnce() throws Exception {
        Mailbox mailbox = Mailbox.inMemory(4096, new byte[0]);
        Doorbell[] bells = Doorbell.pipes();
        MailboxTransport peer = echo(mailbox, bells[1]);
        ThreadRecordingInbox inbox = new ThreadRecordingInbox();
        MailboxTransport client = new MailboxTransport(mailbox, bells[0], true, () -> true, "client", MAX_FRAME, () -> { });
        client.start(inbox);
        try {
            for (int i = 1; i <= 50; i++) {
                client.send(frame(i));
                long deadline = System.nanoTime() + GUARD_NANOS;
                while (inbox.frames.isEmpty() && System.nanoTime() < deadline) {
                    client.receiveWhile(inbox.frames::isEmpty, deadline); // false only while the pump holds it
                }
                assertEquals(i, seed(inbox.next()));
            }
            assertTrue(inbox.threads.contains(Thread.currentThread()), "some replies reached the caller directly");
            // 300 frames: larger than one 4 KiB block in total, so several blocks and both callers
            inbox.twoCallersReceive(client, 300, frames -> {
                for (int i = 1; i <= frames; i++) {
                    client.send(frame(i));
                }
            });
            assertTrue(client.isOpen());
        } finally {
            client.close(new StatusException(StatusCode.CANCELLED, "test done"));
            peer.close(new StatusException(StatusCode.CANCELLED, "test done"));
            mailbox.close();
            bells[0].close();
            bells[1].close();
        }
    }

    @Test
    void aPeerShuttingDownWhileACallerReceivesClosesWithUnavailable() throws Exception {
        Mailbox mailbox = Mailbox.inMemory(4096, new byte[0]);
        Doorbell[] bells = Doorbell.pipes();
        ThreadRecordingInbox inbox = new ThreadRecordingInbox();
        MailboxTransport client = new MailboxTransport(mailbox, bells[0], true, () -> true, "client", MAX_FRAME, () -> { });
        client.start(inbox);
        try {
            Thread peer = Thread.ofPlatform().start(() -> {
                java.util.concurrent.locks.LockSupport.parkNanos(5_000_000);
                mailbox.soState(Mailbox.TO_PARENT, Mailbox.SHUTDOWN);
            });
            while (!client.receiveWhile(client::isOpen, System.nanoTime() + GUARD_NANOS) && client.isOpen()) {
                Thread.onSpinWait(); // false at once while the pump holds the role for a moment
            }
            peer.join();
            StatusException reason = inbox.closed.get(60, TimeUnit.SECONDS);
            assertEquals(StatusCode.UNAVAILABLE, reason.code());
            assertFalse(client.isOpen());
            assertFalse(client.receiveWhile(() -> true, System.nanoTime() + GUARD_NANOS), "closed: no receiving");
        } finally {
            mailbox.close();
            bells[0].close();
            bells[1].close();
        }
    }

    @Test
    void aBadBlockOrHugeFrameLengthWhileACallerReceivesClosesWithInvalidArgument() throws Exception {
        for (boolean badBlock : new boolean[] {true, false}) {
            Mailbox mailbox = Mailbox.inMemory(4096, new byte[0]);
            Doorbell[] bells = Doorbell.pipes();
            ThreadRecordingInbox inbox = new ThreadRecordingInbox();
            MailboxTransport client = new MailboxTransport(mailbox, bells[0], true, () -> true, "client", MAX_FRAME, () -> { });
            client.start(inbox);
            try {
                Thread hostile = Thread.ofPlatform().start(() -> {
                    java.util.concurrent.locks.LockSupport.parkNanos(5_000_000);
                    if (badBlock) {
                        mailbox.length(Mailbox.TO_PARENT, Integer.MAX_VALUE);
                    } else {
                        mailbox.data(Mailbox.TO_PARENT).set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED
                                .withOrder(ByteOrder.LITTLE_ENDIAN), 0, Integer.MAX_VALUE);
                        mailbox.length(Mailbox.TO_PARENT, 8);
                    }
                    mailbox.soState(Mailbox.TO_PARENT, Mailbox.TASK_READY);
                });
                while (!client.receiveWhile(client::isOpen, System.nanoTime() + GUARD_NANOS) && client.isOpen()) {
                    Thread.onSpinWait(); // false at once while the pump holds the role for a moment
                }
                hostile.join();
                StatusException reason = inbox.closed.get(60, TimeUnit.SECONDS);
                assertEquals(StatusCode.INVALID_ARGUMENT, reason.code(), reason.toString());
                assertTrue(reason.getMessage().contains(badBlock ? "block length" : "frame length"), reason.getMessage());
            } finally {
                mailbox.close();
                bells[0].close();
                bells[1].close();
            }
        }
    }

    @Test
    void anErrorWhileACallerDeliversFailsTheTransportNotTheCaller() throws Exception {
        Mailbox mailbox = Mailbox.inMemory(4096, new byte[0]);
        Doorbell[] bells = Doorbell.pipes();
        MailboxTransport peer = echo(mailbox, bells[1]);
        CompletableFuture<StatusException> closed = new CompletableFuture<>();
        MailboxTransport client = new MailboxTransport(mailbox, bells[0], true, () -> true, "client", MAX_FRAME, () -> { });
        client.start(new Transport.Listener() {
            @Override
            public void onFrame(ByteBuffer body) {
                throw new StackOverflowError("test: a callback while delivering");
            }

            @Override
            public void onClosed(StatusException reason) {
                closed.complete(reason);
            }
        });
        try {
            client.send(frame(1));
            long deadline = System.nanoTime() + GUARD_NANOS;
            while (!client.receiveWhile(client::isOpen, deadline) && client.isOpen()) {
                Thread.onSpinWait(); // the pump may hold the role for a moment
            }
            StatusException reason = closed.get(60, TimeUnit.SECONDS);
            assertEquals(StatusCode.UNAVAILABLE, reason.code());
            assertTrue(reason.getMessage().contains("StackOverflowError"), reason.getMessage());
        } finally {
            peer.close(new StatusException(StatusCode.CANCELLED, "test done"));
            mailbox.close();
            bells[0].close();
            bells[1].close();
        }
    }
}
