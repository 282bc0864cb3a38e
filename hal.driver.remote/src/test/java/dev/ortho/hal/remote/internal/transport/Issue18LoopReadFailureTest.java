package dev.ortho.hal.remote.internal.transport;

import static dev.ortho.hal.remote.internal.transport.ThreadRecordingInbox.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 18 (reliability): a read the selector connection's I/O loop makes as a task of its own
 * (bytes left after a wake-up's 64 frames: {@code readOnLoopSoon}; a rearm after callers held the
 * read role: {@code watchReadsAgain}) closes the connection with UNAVAILABLE naming the failure
 * when it fails with a RuntimeException, as a read on readiness does. Before, the loop only
 * logged it and the connection stayed open with a frame half received: every waiter hung.
 */
class Issue18LoopReadFailureTest {
    @Test
    void aRuntimeExceptionInALoopTaskReadClosesTheConnectionNamingIt() throws Exception {
        try (IoLoop loop = new IoLoop(TimeUnit.MILLISECONDS.toNanos(100), () -> { });
                ServerSocketChannel acceptor = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
                SocketChannel peer = SocketChannel.open(acceptor.getLocalAddress())) {
            TcpConnection connection = new TcpConnection(loop, acceptor.accept(), 1 << 20, "test peer");
            // a large frame's bytes go to a sink whose memory was freed: receiving into it throws
            Arena arena = Arena.ofShared();
            int bodyLength = Transport.SINK_MIN_BODY_BYTES;
            ByteBuffer freed = arena.allocate(bodyLength - Protocol.HEADER_BYTES).asByteBuffer();
            arena.close();
            ThreadRecordingInbox inbox = new ThreadRecordingInbox() {
                @Override
                public BodySink bodySink(ByteBuffer prefix, int length) {
                    return new BodySink(Protocol.HEADER_BYTES, freed) {
                        @Override
                        protected void complete() {
                        }

                        @Override
                        protected void release() {
                        }
                    };
                }
            };

            // all of it waits in the socket before the connection starts, so the loop's first read
            // takes it at once: 64 frames (a wake-up's cap), then the large frame's start is left
            // for a read the loop runs as a task
            ByteBuffer bytes = ByteBuffer.allocate(64 << 10).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 1; i <= 64; i++) {
                bytes.put(frame(i));
            }
            bytes.putInt(bodyLength).put(new byte[1000]).flip();
            while (bytes.hasRemaining()) {
                peer.write(bytes);
            }
            connection.start(inbox);

            StatusException reason = inbox.closed.get(HangGuard.GUARD_NANOS, TimeUnit.NANOSECONDS);
            assertEquals(StatusCode.UNAVAILABLE, reason.code(), reason.toString());
            assertTrue(reason.getMessage().contains("IllegalStateException"), reason.getMessage());
            assertEquals(64, inbox.frames.size(), "the 64 frames before it were delivered");
            assertTrue(!connection.isOpen());
        }
    }
}
