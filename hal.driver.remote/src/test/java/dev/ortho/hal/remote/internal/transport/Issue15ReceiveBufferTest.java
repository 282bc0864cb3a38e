package dev.ortho.hal.remote.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusException;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 15 section 1: a frame body was allocated whole when its length arrived, so a client that
 * announced 16 MiB and sent 100 bytes made the server hold 16 MiB per connection. Now the body
 * grows with what arrives (64 KiB first, then doubling), and a whole frame still arrives intact.
 */
class Issue15ReceiveBufferTest {

    @Test
    void aBodyGrowsWithTheBytesThatArriveNotWithTheAnnouncedLength() throws Exception {
        try (IoLoop loop = new IoLoop(TimeUnit.MILLISECONDS.toNanos(100), () -> { });
                ServerSocketChannel acceptor = ServerSocketChannel.open()) {
            acceptor.bind(new InetSocketAddress("127.0.0.1", 0));
            try (SocketChannel peer = SocketChannel.open(acceptor.getLocalAddress());
                    SocketChannel accepted = acceptor.accept()) {
                int max = Protocol.DEFAULT_MAX_FRAME_BYTES;
                TcpConnection connection = new TcpConnection(loop, accepted, max, "test peer");
                CompletableFuture<ByteBuffer> received = new CompletableFuture<>();
                connection.start(new Transport.Listener() {
                    @Override
                    public void onFrame(ByteBuffer body) {
                        received.complete(body);
                    }

                    @Override
                    public void onClosed(StatusException reason) {
                        received.completeExceptionally(reason);
                    }
                });
                int length = 16 << 20;
                ByteBuffer start = ByteBuffer.allocate(4 + 100).order(ByteOrder.LITTLE_ENDIAN).putInt(length);
                peer.write(start.clear().limit(104));
                long held = 0;
                for (int i = 0; i < 1000 && held == 0; i++) { // until the loop has read the announcement (hang guard)
                    held = connection.receiveBufferBytes();
                    Thread.sleep(5);
                }
                assertTrue(held > 0 && held <= 64 << 10, "held " + held + " bytes for 100 received of " + length);
                ByteBuffer rest = ByteBuffer.allocate(length - 100);
                for (int i = 0; i < rest.capacity(); i++) {
                    rest.put(i, (byte) (i * 7));
                }
                while (rest.hasRemaining()) {
                    peer.write(rest);
                }
                ByteBuffer body = received.get(60, TimeUnit.SECONDS);
                assertEquals(length, body.remaining());
                assertEquals((byte) (1000 * 7), body.get(100 + 1000));
                assertEquals(0, connection.receiveBufferBytes());
            }
        }
    }
}
