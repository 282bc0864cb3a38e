package dev.ortho.hal.remote.internal.transport;

import static dev.ortho.hal.remote.internal.transport.ThreadRecordingInbox.frame;
import static dev.ortho.hal.remote.internal.transport.ThreadRecordingInbox.seed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 18: a caller waiting for the peer receives on its own thread
 * ({@link TcpConnection#receiveWhile}): the frame it waits for is delivered on its thread; the
 * read role goes back to the loop afterwards (frames nobody waits for still arrive); a second
 * waiting caller never reads at the same time; a peer that closes mid-frame or sends a bad length
 * while a caller receives closes the connection (UNAVAILABLE / INVALID_ARGUMENT) and the caller
 * returns instead of hanging.
 */
class Issue18CallerReceiveTest {
    private static final long GUARD_NANOS = TimeUnit.SECONDS.toNanos(60);

    private static void writeFully(SocketChannel channel, ByteBuffer data) throws Exception {
        while (data.hasRemaining()) {
            channel.write(data);
        }
    }

    /** A started connection on {@code loop} whose peer end is returned in {@code peer[0]}. */
    private static TcpConnection connect(IoLoop loop, ServerSocketChannel acceptor, ThreadRecordingInbox inbox, SocketChannel[] peer)
            throws Exception {
        peer[0] = SocketChannel.open(acceptor.getLocalAddress());
        peer[0].socket().setTcpNoDelay(true);
        TcpConnection connection = new TcpConnection(loop, acceptor.accept(), 1 << 20, "test peer");
        connection.start(inbox);
        writeFully(peer[0], frame(0)); // through the loop: registered from here on
        assertEquals(0, seed(inbox.next()));
        return connection;
    }

    @Test
    void theWaitedFrameArrivesOnTheCallersThreadAndTheLoopReadsAgainAfterwards() throws Exception {
        try (IoLoop loop = new IoLoop(TimeUnit.MILLISECONDS.toNanos(100), () -> { });
                ServerSocketChannel acceptor = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            ThreadRecordingInbox inbox = new ThreadRecordingInbox();
            SocketChannel[] peer = new SocketChannel[1];
            TcpConnection connection = connect(loop, acceptor, inbox, peer);
            // The writer's probe can also succeed between two holders of the role, so a round's
            // frame may be read by the loop; with caller receiving broken, none is read by the caller.
            int onCaller = 0;
            for (int round = 1; round <= 20; round++) {
                int expected = round;
                Thread writer = Thread.ofPlatform().start(() -> {
                    try {
                        // writes once the caller holds the read role (this probe then answers false)
                        while (connection.receiveWhile(() -> false, Long.MIN_VALUE)) {
                            Thread.onSpinWait();
                        }
                        writeFully(peer[0], frame(expected));
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                long deadline = System.nanoTime() + GUARD_NANOS;
                while (!connection.receiveWhile(inbox.frames::isEmpty, deadline)) { // the loop may still hold it
                    assertTrue(System.nanoTime() < deadline, "hang guard");
                }
                assertFalse(inbox.frames.isEmpty(), "returned with its frame, before the hang guard");
                if (inbox.threads.getLast() == Thread.currentThread()) {
                    onCaller++;
                }
                assertEquals(expected, seed(inbox.next()));
                writer.join();
            }
            assertTrue(onCaller >= 10, "frames delivered on the caller's thread: " + onCaller + " of 20");
            writeFully(peer[0], frame(99)); // nobody waits: the loop reads it (after the role came back)
            assertEquals(99, seed(inbox.next()));
            assertTrue(inbox.threads.getLast().getName().startsWith("ortho-remote-io-"), inbox.threads.getLast().getName());
            assertTrue(connection.isOpen());
            peer[0].close();
        }
    }

    @Test
    void anExpiredDeadlineReturnsAndTwoCallersNeverReadAtOnce() throws Exception {
        try (IoLoop loop = new IoLoop(TimeUnit.MILLISECONDS.toNanos(100), () -> { });
                ServerSocketChannel acceptor = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            ThreadRecordingInbox inbox = new ThreadRecordingInbox();
            SocketChannel[] peer = new SocketChannel[1];
            TcpConnection connection = connect(loop, acceptor, inbox, peer);
            long guard = System.nanoTime() + GUARD_NANOS;
            while (!connection.receiveWhile(() -> true, Long.MIN_VALUE)) { // false while the loop finishes its read
                assertTrue(System.nanoTime() < guard, "hang guard");
            }
            while (!connection.receiveWhile(() -> true, System.nanoTime() + 1_000_000)) { // returns at the deadline
                assertTrue(System.nanoTime() < guard, "hang guard");
            }
            inbox.twoCallersReceive(connection, 400, frames -> {
                for (int i = 1; i <= frames; i++) {
                    writeFully(peer[0], frame(i));
                }
            });
            assertTrue(connection.isOpen());
            peer[0].close();
        }
    }

    @Test
    void aPeerClosingMidFrameWhileACallerReceivesClosesWithUnavailable() throws Exception {
        try (IoLoop loop = new IoLoop(TimeUnit.MILLISECONDS.toNanos(100), () -> { });
                ServerSocketChannel acceptor = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            ThreadRecordingInbox inbox = new ThreadRecordingInbox();
            SocketChannel[] peer = new SocketChannel[1];
            TcpConnection connection = connect(loop, acceptor, inbox, peer);
            Thread cutter = Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep(5);
                    ByteBuffer whole = frame(1);
                    writeFully(peer[0], whole.limit(whole.limit() - 3));
                    Thread.sleep(5);
                    peer[0].close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            while (!connection.receiveWhile(connection::isOpen, System.nanoTime() + GUARD_NANOS)) {
                Thread.onSpinWait(); // the loop finishing its read of frame 0
            }
            cutter.join();
            StatusException reason = inbox.closed.get(60, TimeUnit.SECONDS);
            assertEquals(StatusCode.UNAVAILABLE, reason.code());
            assertTrue(reason.getMessage().contains("inside a frame"), reason.getMessage());
            assertFalse(connection.isOpen());
            assertFalse(connection.receiveWhile(() -> true, System.nanoTime() + GUARD_NANOS), "closed: no receiving");
        }
    }

    @Test
    void aHugeLengthWhileACallerReceivesClosesWithInvalidArgumentWithoutAllocating() throws Exception {
        try (IoLoop loop = new IoLoop(TimeUnit.MILLISECONDS.toNanos(100), () -> { });
                ServerSocketChannel acceptor = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            ThreadRecordingInbox inbox = new ThreadRecordingInbox();
            SocketChannel[] peer = new SocketChannel[1];
            TcpConnection connection = connect(loop, acceptor, inbox, peer);
            Thread hostile = Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep(5);
                    writeFully(peer[0], ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(Integer.MAX_VALUE)
                            .putInt(7).flip());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            while (!connection.receiveWhile(connection::isOpen, System.nanoTime() + GUARD_NANOS)) {
                Thread.onSpinWait(); // the loop finishing its read of frame 0
            }
            hostile.join();
            StatusException reason = inbox.closed.get(60, TimeUnit.SECONDS);
            assertEquals(StatusCode.INVALID_ARGUMENT, reason.code());
            assertTrue(reason.getMessage().contains("frame length " + Integer.MAX_VALUE), reason.getMessage());
            assertNull(inbox.frames.poll());
            peer[0].close();
        }
    }
}
