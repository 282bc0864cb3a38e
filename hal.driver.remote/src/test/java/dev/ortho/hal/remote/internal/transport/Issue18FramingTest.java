package dev.ortho.hal.remote.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 18: {@link TcpConnection} reads through a receive buffer and writes bursts in one
 * gathering write (heap frames in slices). Frames must arrive whole and in order however the
 * stream is split, and whatever mix of {@code send}, {@code sendDeferred} and {@code sendAll}
 * queued them; a deferred frame nobody flushes still goes out.
 */
class Issue18FramingTest {
    private static final long GUARD_SECONDS = 60;

    /** Frames received by a listener, and the close reason. */
    private static final class Inbox implements Transport.Listener {
        final BlockingQueue<ByteBuffer> frames = new LinkedBlockingQueue<>();
        final CompletableFuture<StatusException> closed = new CompletableFuture<>();

        @Override
        public void onFrame(ByteBuffer body) {
            frames.add(body);
        }

        @Override
        public void onClosed(StatusException reason) {
            closed.complete(reason);
        }

        ByteBuffer next() throws InterruptedException {
            ByteBuffer frame = frames.poll(GUARD_SECONDS, TimeUnit.SECONDS);
            assertTrue(frame != null, "no frame arrived within " + GUARD_SECONDS + " s (hang guard)");
            return frame;
        }
    }

    /** A frame of {@code payload} bytes whose contents derive from {@code seed}. */
    private static ByteBuffer frame(int seed, int payload) {
        FrameWriter writer = FrameWriter.frame(1000 + seed, seed, payload);
        for (int i = 0; i < payload; i++) {
            writer.putU8(seed * 31 + i * 7);
        }
        return writer.finish();
    }

    private static void assertFrame(int seed, int payload, ByteBuffer body) {
        ByteBuffer expected = frame(seed, payload);
        expected.position(4); // the receiver gets the body after the length prefix
        assertEquals(expected, body, "frame " + seed + " of " + payload + " payload bytes");
    }

    private static byte[] bytes(List<ByteBuffer> frames) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (ByteBuffer frame : frames) {
            byte[] copy = new byte[frame.remaining()];
            frame.duplicate().get(copy);
            out.writeBytes(copy);
        }
        return out.toByteArray();
    }

    private static void writeFully(SocketChannel channel, ByteBuffer data) throws Exception {
        while (data.hasRemaining()) {
            channel.write(data);
        }
    }

    @Test
    void framesArriveWholeWhereverTheStreamIsSplit() throws Exception {
        int[] sizes = {0, 1, 5, 37, 300};
        List<ByteBuffer> stream = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            stream.add(frame(i, sizes[i]));
        }
        byte[] all = bytes(stream);
        try (IoLoop loop = new IoLoop(TimeUnit.MILLISECONDS.toNanos(100), () -> { });
                ServerSocketChannel acceptor = ServerSocketChannel.open()) {
            acceptor.bind(new InetSocketAddress("127.0.0.1", 0));
            try (SocketChannel peer = SocketChannel.open(acceptor.getLocalAddress());
                    SocketChannel accepted = acceptor.accept()) {
                peer.socket().setTcpNoDelay(true);
                TcpConnection connection = new TcpConnection(loop, accepted, 1 << 20, "test peer");
                Inbox inbox = new Inbox();
                connection.start(inbox);
                for (int split = 1; split < all.length; split++) { // every byte boundary of the stream
                    writeFully(peer, ByteBuffer.wrap(all, 0, split));
                    Thread.sleep(0, 200_000); // let the loop see the first part alone, most of the time
                    writeFully(peer, ByteBuffer.wrap(all, split, all.length - split));
                    for (int i = 0; i < sizes.length; i++) {
                        assertFrame(i, sizes[i], inbox.next());
                    }
                }
                for (byte b : all) { // one byte per write
                    writeFully(peer, ByteBuffer.wrap(new byte[] {b}));
                }
                for (int i = 0; i < sizes.length; i++) {
                    assertFrame(i, sizes[i], inbox.next());
                }
                assertTrue(inbox.frames.isEmpty());
                assertTrue(connection.isOpen());
            }
        }
    }

    @Test
    void aLargeFrameSplitAroundTheReceiveBufferArrivesWhole() throws Exception {
        int large = 3 * TcpConnection.RECEIVE_BUFFER_BYTES + 11; // read straight into the body, grown
        List<ByteBuffer> stream = List.of(frame(1, 3), frame(2, large), frame(3, 9));
        byte[] all = bytes(stream);
        int start = stream.get(0).remaining();
        int[] splits = {1, start - 1, start, start + 2, start + 4, start + 16, start + 17,
                start + TcpConnection.RECEIVE_BUFFER_BYTES - 1, start + TcpConnection.FIRST_BODY_CHUNK + 16,
                all.length - 20, all.length - 1};
        try (IoLoop loop = new IoLoop(TimeUnit.MILLISECONDS.toNanos(100), () -> { });
                ServerSocketChannel acceptor = ServerSocketChannel.open()) {
            acceptor.bind(new InetSocketAddress("127.0.0.1", 0));
            try (SocketChannel peer = SocketChannel.open(acceptor.getLocalAddress());
                    SocketChannel accepted = acceptor.accept()) {
                TcpConnection connection = new TcpConnection(loop, accepted, 1 << 20, "test peer");
                Inbox inbox = new Inbox();
                connection.start(inbox);
                for (int split : splits) {
                    writeFully(peer, ByteBuffer.wrap(all, 0, split));
                    Thread.sleep(1);
                    writeFully(peer, ByteBuffer.wrap(all, split, all.length - split));
                    assertFrame(1, 3, inbox.next());
                    assertFrame(2, large, inbox.next());
                    assertFrame(3, 9, inbox.next());
                }
            }
        }
    }

    @Test
    void sendDeferredAndSendAllKeepOrderAndADeferredFrameGoesOutUnflushed() throws Exception {
        int large = 700_000; // a heap frame written in slices, with small frames queued behind it
        try (IoLoop loop = new IoLoop(TimeUnit.MILLISECONDS.toNanos(100), () -> { });
                ServerSocketChannel acceptor = ServerSocketChannel.open()) {
            acceptor.bind(new InetSocketAddress("127.0.0.1", 0));
            try (SocketChannel client = SocketChannel.open(acceptor.getLocalAddress());
                    SocketChannel accepted = acceptor.accept()) {
                TcpConnection sender = new TcpConnection(loop, client, 1 << 20, "sender");
                TcpConnection receiver = new TcpConnection(loop, accepted, 1 << 20, "receiver");
                Inbox sent = new Inbox();
                Inbox inbox = new Inbox();
                sender.start(sent);
                receiver.start(inbox);
                sender.sendDeferred(frame(0, 4));
                sender.send(frame(1, large));
                sender.sendDeferred(frame(2, 8));
                sender.sendAll(List.of(frame(3, 1), frame(4, large), frame(5, 2)));
                for (int i = 6; i < 40; i++) {
                    sender.sendDeferred(frame(i, i));
                }
                sender.flush();
                assertFrame(0, 4, inbox.next());
                assertFrame(1, large, inbox.next());
                assertFrame(2, 8, inbox.next());
                assertFrame(3, 1, inbox.next());
                assertFrame(4, large, inbox.next());
                assertFrame(5, 2, inbox.next());
                for (int i = 6; i < 40; i++) {
                    assertFrame(i, i, inbox.next());
                }
                sender.sendDeferred(frame(99, 3)); // nobody flushes: the loop writes it
                assertFrame(99, 3, inbox.next());
                assertEquals(0, sender.queuedBytes());
            }
        }
    }

    @Test
    void aPeerClosingInsideABurstClosesWithUnavailable() throws Exception {
        List<ByteBuffer> stream = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            stream.add(frame(i, 20));
        }
        byte[] all = bytes(stream);
        int cut = all.length - 13; // inside the last frame
        try (IoLoop loop = new IoLoop(TimeUnit.MILLISECONDS.toNanos(100), () -> { });
                ServerSocketChannel acceptor = ServerSocketChannel.open()) {
            acceptor.bind(new InetSocketAddress("127.0.0.1", 0));
            SocketChannel peer = SocketChannel.open(acceptor.getLocalAddress());
            try (SocketChannel accepted = acceptor.accept()) {
                TcpConnection connection = new TcpConnection(loop, accepted, 1 << 20, "test peer");
                Inbox inbox = new Inbox();
                connection.start(inbox);
                writeFully(peer, ByteBuffer.wrap(all, 0, cut));
                peer.close();
                for (int i = 0; i < 7; i++) {
                    assertFrame(i, 20, inbox.next()); // the whole frames before the cut still arrive
                }
                StatusException reason = inbox.closed.get(GUARD_SECONDS, TimeUnit.SECONDS);
                assertEquals(StatusCode.UNAVAILABLE, reason.code());
                assertTrue(reason.getMessage().contains("inside a frame"), reason.getMessage());
                assertTrue(inbox.frames.isEmpty());
            }
        }
    }
}
