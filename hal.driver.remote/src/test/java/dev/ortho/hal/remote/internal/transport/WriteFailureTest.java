package dev.ortho.hal.remote.internal.transport;

import static dev.ortho.hal.remote.internal.transport.ThreadRecordingInbox.frame;
import static dev.ortho.hal.remote.internal.transport.ThreadRecordingInbox.seed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A write that fails with something other than an {@link java.io.IOException} (here a payload
 * whose memory is gone, so the socket write throws {@link IllegalStateException}) closes the
 * connection like a failed write: the listener hears why, the lent payloads come back, the write
 * role is free and the loop keeps running. Before, {@code tryWrite} and {@code flushFromLoop}
 * caught only IOException: the exception left the write role held for good (nothing was written
 * or given back again), escaped to the sender, or was logged by the loop with the connection
 * left open.
 */
class WriteFailureTest {
    private static final int PAYLOAD = 4096;

    /** A direct buffer over memory already freed: any read of it throws IllegalStateException. */
    private static ByteBuffer freedMemory() {
        Arena arena = Arena.ofShared();
        ByteBuffer buffer = arena.allocate(PAYLOAD).asByteBuffer();
        arena.close();
        return buffer;
    }

    private static ByteBuffer head() {
        return FrameWriter.frame(1001, 1, 4).putI32(PAYLOAD).finishWithPayload(PAYLOAD);
    }

    private static void writeFully(SocketChannel channel, ByteBuffer data) throws Exception {
        while (data.hasRemaining()) {
            channel.write(data);
        }
    }

    private static void assertClosedCleanly(TcpConnection connection, ThreadRecordingInbox inbox, AtomicInteger returned,
            IoLoop loop) throws Exception {
        HangGuard.await(() -> returned.get() > 0, "the lent payload was given back", connection::diagnostics);
        StatusException reason = inbox.closed.get(60, TimeUnit.SECONDS); // hang guard
        assertEquals(StatusCode.UNAVAILABLE, reason.code(), reason.toString());
        assertTrue(reason.getMessage().contains("IllegalStateException"), reason.getMessage());
        assertFalse(connection.isOpen());
        assertEquals(1, returned.get(), "given back once");
        assertTrue(connection.diagnostics().contains("writeRoleHeld=false"), connection.diagnostics());
        assertTrue(loop.isRunning());
    }

    @Test
    void aSenderWhoseWriteThrowsClosesTheConnectionAndLetsGoOfTheWriteRole() throws Exception {
        try (IoLoop loop = new IoLoop(TimeUnit.MILLISECONDS.toNanos(100), () -> { });
                ServerSocketChannel acceptor = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
                SocketChannel peer = SocketChannel.open(acceptor.getLocalAddress())) {
            TcpConnection connection = new TcpConnection(loop, acceptor.accept(), 16 << 20, "test peer");
            ThreadRecordingInbox inbox = new ThreadRecordingInbox();
            connection.start(inbox);
            writeFully(peer, frame(0)); // through the loop: registered from here on, so senders write themselves
            assertEquals(0, seed(inbox.next()));
            AtomicInteger returned = new AtomicInteger();
            connection.sendLent(head(), freedMemory(), returned::incrementAndGet); // threw IllegalStateException
            assertClosedCleanly(connection, inbox, returned, loop);
            connection.send(frame(2)); // dropped, never thrown
        }
    }

    @Test
    void theLoopsWriteThrowingClosesTheConnectionAndGivesTheLentPayloadBack() throws Exception {
        try (IoLoop loop = new IoLoop(TimeUnit.MILLISECONDS.toNanos(100), () -> { });
                ServerSocketChannel acceptor = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
                SocketChannel peer = SocketChannel.open(acceptor.getLocalAddress())) {
            peer.setOption(StandardSocketOptions.SO_RCVBUF, 32 << 10);
            SocketChannel accepted = acceptor.accept();
            accepted.setOption(StandardSocketOptions.SO_SNDBUF, 32 << 10);
            TcpConnection connection = new TcpConnection(loop, accepted, 16 << 20, "test peer");
            ThreadRecordingInbox inbox = new ThreadRecordingInbox();
            connection.start(inbox);
            writeFully(peer, frame(0));
            assertEquals(0, seed(inbox.next()));
            // 1 MiB on the heap the peer does not read yet: the socket fills and the loop goes on
            // writing; the payload queued behind it is not read before the frame is all written
            connection.send(FrameWriter.frame(1002, 2, 4).putBytes(new byte[1 << 20], 0, 1 << 20).finish());
            AtomicInteger returned = new AtomicInteger();
            connection.sendLent(head(), freedMemory(), returned::incrementAndGet);
            assertEquals(0, returned.get(), "queued behind the large frame");
            Thread reader = Thread.ofPlatform().start(() -> {
                ByteBuffer sink = ByteBuffer.allocate(64 << 10);
                try {
                    while (peer.read(sink.clear()) >= 0) {
                        // the large frame, then the server closes
                    }
                } catch (java.io.IOException closed) {
                    // reset: closed too
                }
            });
            assertClosedCleanly(connection, inbox, returned, loop);
            reader.join(60_000);
            assertFalse(reader.isAlive(), "the peer saw the close (hang guard)");
        }
    }
}
