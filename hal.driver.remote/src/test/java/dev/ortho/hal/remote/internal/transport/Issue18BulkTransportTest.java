package dev.ortho.hal.remote.internal.transport;

import static dev.ortho.hal.remote.internal.transport.ThreadRecordingInbox.frame;
import static dev.ortho.hal.remote.internal.transport.ThreadRecordingInbox.seed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Issue 18, bulk transfers and the read role's rearm: a large frame is written from the
 * caller's thread, blocking while the socket is full, with no hand-off to the loop
 * ({@link TcpConnection#sendWithPayload}); a large received frame whose listener lends a
 * {@link BodySink} lands in it without a body buffer, in order with the other frames, and an
 * aborted sink, a peer closing inside it or a sink that does not fit the frame never writes
 * released memory nor hangs; and when a caller hands back the read role while the loop had
 * stopped watching, the loop watches again at once if the listener expects frames (else later).
 */
class Issue18BulkTransportTest {
    private static final int LARGE = 3 << 20;

    /**
     * A connection to {@code peer} with 32 KiB socket buffers (a peer that stops reading fills
     * them at once), registered with the loop (a first frame went through it).
     */
    private static TcpConnection registeredWithSmallBuffers(IoLoop loop, ServerSocketChannel acceptor,
            SocketChannel peer) throws Exception {
        peer.setOption(StandardSocketOptions.SO_RCVBUF, 32 << 10);
        SocketChannel accepted = acceptor.accept();
        accepted.setOption(StandardSocketOptions.SO_SNDBUF, 32 << 10);
        TcpConnection connection = new TcpConnection(loop, accepted, 16 << 20, "test peer");
        ThreadRecordingInbox inbox = new ThreadRecordingInbox();
        connection.start(inbox);
        writeFully(peer, frame(0)); // through the loop: registered from here on
        assertEquals(0, seed(inbox.next()));
        return connection;
    }

    private static void writeFully(SocketChannel channel, ByteBuffer data) throws Exception {
        while (data.hasRemaining()) {
            channel.write(data);
        }
    }

    private static void readFully(SocketChannel channel, ByteBuffer data) throws Exception {
        while (data.hasRemaining()) {
            if (channel.read(data) < 0) {
                throw new IllegalStateException("peer closed");
            }
        }
    }

    /** One frame's body from a blocking channel. */
    private static ByteBuffer readFrame(SocketChannel channel) throws Exception {
        ByteBuffer length = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
        readFully(channel, length);
        ByteBuffer body = ByteBuffer.allocate(length.getInt(0)).order(ByteOrder.LITTLE_ENDIAN);
        readFully(channel, body);
        return body.flip();
    }

    private static byte[] random(int size, long seed) {
        byte[] data = new byte[size];
        new Random(seed).nextBytes(data);
        return data;
    }

    /** A frame of opcode {@code opcode}, request id {@code seed}: an i32 length and {@code data}, in one buffer. */
    private static ByteBuffer largeFrame(int opcode, int seed, byte[] data) {
        return FrameWriter.frame(opcode, seed, data.length + 4).putBytes(data, 0, data.length).finish();
    }

    @Test
    void aLargeFrameIsWrittenFromTheCallersThreadInOrderWithoutHandingTheSocketToTheLoop() throws Exception {
        try (IoLoop loop = new IoLoop(TimeUnit.MILLISECONDS.toNanos(100), () -> { });
                ServerSocketChannel acceptor = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
                SocketChannel peer = SocketChannel.open(acceptor.getLocalAddress())) {
            peer.setOption(StandardSocketOptions.SO_RCVBUF, 32 << 10);
            SocketChannel accepted = acceptor.accept();
            accepted.setOption(StandardSocketOptions.SO_SNDBUF, 32 << 10); // the socket fills many times over
            TcpConnection connection = new TcpConnection(loop, accepted, 16 << 20, "test peer");
            ThreadRecordingInbox inbox = new ThreadRecordingInbox();
            connection.start(inbox);
            writeFully(peer, frame(0)); // through the loop: registered from here on
            assertEquals(0, seed(inbox.next()));
            byte[] heap = random(LARGE, 1);
            ByteBuffer direct = ByteBuffer.allocateDirect(LARGE).put(random(LARGE, 2)).flip();
            List<ByteBuffer> received = new CopyOnWriteArrayList<>();
            Thread reader = Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < 4; i++) {
                        received.add(readFrame(peer));
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            connection.sendDeferred(frame(1)); // queued before: goes first
            connection.sendWithPayload(FrameWriter.frame(1002, 2, 4).putI32(LARGE).finishWithPayload(LARGE),
                    ByteBuffer.wrap(heap));
            java.util.Arrays.fill(heap, (byte) 0); // the caller may reuse its memory at once
            connection.sendWithPayload(FrameWriter.frame(1003, 3, 4).putI32(LARGE).finishWithPayload(LARGE), direct);
            assertEquals(0, connection.handOffs(), "the caller wrote every byte itself, blocking while the socket was full");
            connection.send(frame(4));
            reader.join(60_000);
            assertFalse(reader.isAlive(), "hang guard");
            assertEquals(4, received.size());
            for (int i = 0; i < 4; i++) {
                assertEquals(i + 1, seed(received.get(i)), "in order");
            }
            assertEquals(-1, received.get(1).position(16).mismatch(ByteBuffer.wrap(random(LARGE, 1))));
            assertEquals(-1, received.get(2).position(16).mismatch(ByteBuffer.wrap(random(LARGE, 2))));
            assertTrue(connection.isOpen());
        }
    }

    private static void awaitCount(AtomicInteger count, int expected) throws InterruptedException {
        long guard = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (count.get() < expected && System.nanoTime() < guard) {
            Thread.sleep(1);
        }
        assertEquals(expected, count.get());
    }

    @Test
    void aLentPayloadIsWrittenFromItsMemoryAndGivenBackOnceWrittenOrOnceClosed() throws Exception {
        try (IoLoop loop = new IoLoop(TimeUnit.MILLISECONDS.toNanos(100), () -> { });
                ServerSocketChannel acceptor = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
                SocketChannel peer = SocketChannel.open(acceptor.getLocalAddress())) {
            TcpConnection connection = registeredWithSmallBuffers(loop, acceptor, peer);
            // written: given back once, after the last byte
            AtomicInteger returned = new AtomicInteger();
            ByteBuffer payload = ByteBuffer.allocateDirect(LARGE).put(random(LARGE, 9)).flip();
            connection.sendLent(FrameWriter.frame(1001, 1, 4).putI32(LARGE).finishWithPayload(LARGE), payload,
                    returned::incrementAndGet);
            connection.send(frame(2));
            ByteBuffer first = readFrame(peer);
            assertEquals(1, seed(first));
            assertEquals(-1, first.position(16).mismatch(ByteBuffer.wrap(random(LARGE, 9))));
            assertEquals(2, seed(readFrame(peer)), "in order");
            awaitCount(returned, 1);
            // the peer stops reading: given back once when the connection closes
            AtomicInteger stranded = new AtomicInteger();
            connection.sendLent(FrameWriter.frame(1003, 3, 4).putI32(LARGE).finishWithPayload(LARGE),
                    ByteBuffer.allocateDirect(LARGE), stranded::incrementAndGet);
            assertEquals(0, stranded.get(), "the socket cannot have taken 3 MiB");
            connection.close(new StatusException(StatusCode.CANCELLED, "test over"));
            awaitCount(stranded, 1);
            // after close: given back at once, never queued
            AtomicInteger late = new AtomicInteger();
            connection.sendLent(FrameWriter.frame(1004, 4, 4).putI32(8).finishWithPayload(8), ByteBuffer.allocate(8),
                    late::incrementAndGet);
            assertEquals(1, late.get());
            assertEquals(1, returned.get());
            assertEquals(1, stranded.get());
        }
    }

    /**
     * A non-reading client once kept a server session open past its 60 s guard (TrustTest): the
     * queue limit closed the connection, which gave back the lent payloads still queued (the
     * buffer mappings, then the session's device and its memory were released), but the frames
     * stayed queued and a writer that took the write role after the close (a flush the loop had
     * queued when the socket filled, a sender's flush) wrote them from the returned memory. Here
     * the returned payload's arena is closed as its owner would free it; the loop is held so the
     * channel is still open, and a flush after the close must write nothing (it threw "Already
     * closed" from the freed memory, and left the write role held).
     */
    @Test
    void noWriterTouchesALentPayloadAfterCloseGaveItBack() throws Exception {
        try (IoLoop loop = new IoLoop(TimeUnit.MILLISECONDS.toNanos(100), () -> { });
                ServerSocketChannel acceptor = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
                SocketChannel peer = SocketChannel.open(acceptor.getLocalAddress())) {
            TcpConnection connection = registeredWithSmallBuffers(loop, acceptor, peer);
            java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared();
            ByteBuffer payload = arena.allocate(LARGE).asByteBuffer();
            AtomicInteger returned = new AtomicInteger();
            connection.sendLent(FrameWriter.frame(1003, 3, 4).putI32(LARGE).finishWithPayload(LARGE), payload, () -> {
                returned.incrementAndGet();
                arena.close(); // its owner frees the memory
            });
            java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            loop.execute(() -> {
                held.countDown();
                try {
                    release.await(); // the loop cannot close the channel meanwhile
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            try {
                assertTrue(held.await(60, TimeUnit.SECONDS), "hang guard");
                assertEquals(0, returned.get(), "the peer reads nothing: 3 MiB cannot all have been written");
                connection.close(new StatusException(StatusCode.CANCELLED, "test over"));
                assertEquals(1, returned.get(), "close gave the payload back (nobody was writing)");
                connection.flush(); // a writer after the close: must not write the returned payload
                assertEquals(0, connection.queuedBytes(), "the closed connection dropped its queue");
            } finally {
                release.countDown();
            }
            assertEquals(1, returned.get());
        }
    }

    /** A listener that lends sinks for frames of opcode {@link #LEND} and records everything in order. */
    private static final class Lender extends ThreadRecordingInbox {
        static final int LEND = 2000;
        final List<String> events = new CopyOnWriteArrayList<>();
        final AtomicInteger releases = new AtomicInteger();
        volatile ByteBuffer target;
        volatile BodySink lent;
        volatile boolean abortAtOnce;
        volatile int offsetShift;

        @Override
        public void onFrame(ByteBuffer body) {
            events.add("frame " + seed(body));
            super.onFrame(body);
        }

        @Override
        public BodySink bodySink(ByteBuffer prefix, int bodyLength) {
            if (prefix.getInt(0) != LEND) {
                return null;
            }
            int length = prefix.getInt(Protocol.HEADER_BYTES);
            int id = (int) prefix.getLong(4);
            ByteBuffer into = ByteBuffer.allocateDirect(length);
            target = into;
            BodySink sink = new BodySink(Protocol.HEADER_BYTES + 4 + offsetShift, into) {
                @Override
                protected void complete() {
                    events.add("sink " + id);
                }

                @Override
                protected void release() {
                    releases.incrementAndGet();
                }
            };
            lent = sink;
            if (abortAtOnce) {
                sink.abort();
            }
            return sink;
        }
    }

    private static TcpConnection start(IoLoop loop, ServerSocketChannel acceptor, Transport.Listener listener,
            SocketChannel[] peer) throws Exception {
        peer[0] = SocketChannel.open(acceptor.getLocalAddress());
        TcpConnection connection = new TcpConnection(loop, acceptor.accept(), 16 << 20, "test peer");
        connection.start(listener);
        return connection;
    }

    @Test
    void aLentSinkReceivesItsFrameInOrderAndDeclinedFramesArriveWhole() throws Exception {
        try (IoLoop loop = new IoLoop(TimeUnit.MILLISECONDS.toNanos(100), () -> { });
                ServerSocketChannel acceptor = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            Lender lender = new Lender();
            SocketChannel[] peer = new SocketChannel[1];
            TcpConnection connection = start(loop, acceptor, lender, peer);
            writeFully(peer[0], frame(1));
            writeFully(peer[0], largeFrame(Lender.LEND, 2, random(LARGE, 3)));
            writeFully(peer[0], largeFrame(1005, 5, random(LARGE, 4))); // not lent: whole
            writeFully(peer[0], frame(6));
            assertEquals(1, seed(lender.next()));
            ByteBuffer whole = lender.next();
            assertEquals(5, seed(whole));
            assertEquals(LARGE + 16, whole.remaining());
            assertEquals(6, seed(lender.next()));
            assertEquals(List.of("frame 1", "sink 2", "frame 5", "frame 6"), lender.events);
            assertEquals(-1, lender.target.flip().mismatch(ByteBuffer.wrap(random(LARGE, 3))));
            assertEquals(1, lender.releases.get());
            assertTrue(connection.isOpen());
            peer[0].close();
        }
    }

    @Test
    void anAbortedSinkGetsNoMoreBytesAndTheNextFrameStillParses() throws Exception {
        try (IoLoop loop = new IoLoop(TimeUnit.MILLISECONDS.toNanos(100), () -> { });
                ServerSocketChannel acceptor = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            Lender lender = new Lender();
            SocketChannel[] peer = new SocketChannel[1];
            TcpConnection connection = start(loop, acceptor, lender, peer);
            // aborted before a byte lands
            lender.abortAtOnce = true;
            writeFully(peer[0], largeFrame(Lender.LEND, 2, random(LARGE, 5)));
            writeFully(peer[0], frame(3));
            assertEquals(3, seed(lender.next()));
            assertEquals(-1, lender.target.clear().mismatch(ByteBuffer.allocate(LARGE)), "nothing landed");
            assertEquals(List.of("frame 3"), lender.events);
            assertEquals(1, lender.releases.get());
            // aborted half-way (a client that gave up its read)
            lender.abortAtOnce = false;
            ByteBuffer large = largeFrame(Lender.LEND, 4, random(LARGE, 6));
            writeFully(peer[0], large.slice(0, LARGE / 2));
            long guard = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while ((lender.lent == null || lender.lent.missing() == LARGE) && System.nanoTime() < guard) {
                Thread.sleep(1); // until some bytes landed (hang guard)
            }
            BodySink half = lender.lent;
            half.abort();
            int landed = LARGE - half.missing();
            assertTrue(landed > 0 && landed <= LARGE / 2, "landed " + landed);
            writeFully(peer[0], large.position(LARGE / 2));
            writeFully(peer[0], frame(5));
            assertEquals(5, seed(lender.next()));
            ByteBuffer tail = lender.target.clear().position(LARGE / 2);
            assertEquals(-1, tail.mismatch(ByteBuffer.allocate(tail.remaining())), "no byte after the abort landed");
            assertEquals(List.of("frame 3", "frame 5"), lender.events);
            assertEquals(2, lender.releases.get());
            assertTrue(connection.isOpen());
            peer[0].close();
        }
    }

    @Test
    void aPeerClosingInsideALentBodyAbortsTheSinkAndClosesWithUnavailable() throws Exception {
        try (IoLoop loop = new IoLoop(TimeUnit.MILLISECONDS.toNanos(100), () -> { });
                ServerSocketChannel acceptor = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            Lender lender = new Lender();
            SocketChannel[] peer = new SocketChannel[1];
            TcpConnection connection = start(loop, acceptor, lender, peer);
            writeFully(peer[0], largeFrame(Lender.LEND, 2, random(LARGE, 7)).limit(LARGE / 3));
            peer[0].close();
            StatusException reason = lender.closed.get(60, TimeUnit.SECONDS);
            assertEquals(StatusCode.UNAVAILABLE, reason.code());
            assertTrue(reason.getMessage().contains("inside a frame"), reason.getMessage());
            assertEquals(1, lender.releases.get(), "the lent memory was given back once");
            assertTrue(lender.events.isEmpty(), "never completed");
            assertFalse(connection.isOpen());
        }
    }

    @Test
    void aSinkThatDoesNotFitItsFrameClosesWithInternal() throws Exception {
        try (IoLoop loop = new IoLoop(TimeUnit.MILLISECONDS.toNanos(100), () -> { });
                ServerSocketChannel acceptor = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            Lender lender = new Lender();
            lender.offsetShift = 4; // takes 4 bytes fewer than the frame holds
            SocketChannel[] peer = new SocketChannel[1];
            start(loop, acceptor, lender, peer);
            writeFully(peer[0], largeFrame(Lender.LEND, 2, random(1 << 20, 8)));
            StatusException reason = lender.closed.get(60, TimeUnit.SECONDS);
            assertEquals(StatusCode.INTERNAL, reason.code());
            assertTrue(reason.getMessage().contains("body sink"), reason.getMessage());
            assertEquals(1, lender.releases.get());
            assertNull(lender.frames.poll());
            peer[0].close();
        }
    }

    /**
     * A caller holds the read role while the loop is woken for the same bytes (so the loop stops
     * watching reads); then hands the role back. The rearm delay is set far beyond the hang
     * guard, so only a prompt rearm lets the loop read the frame that follows.
     */
    private static void callerRoundTripWithTheLoopOff(TcpConnection connection, ThreadRecordingInbox inbox,
            SocketChannel peer) throws Exception {
        long guard = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        boolean[] sent = new boolean[1];
        while (!connection.receiveWhile(() -> {
            if (!sent[0]) {
                sent[0] = true;
                try {
                    writeFully(peer, frame(1)); // the loop still watches: it is woken and finds the role taken
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                while (!connection.loopStoppedWatching()) {
                    assertTrue(System.nanoTime() < guard, "hang guard");
                    Thread.onSpinWait();
                }
            }
            return inbox.frames.isEmpty();
        }, guard)) {
            assertTrue(System.nanoTime() < guard, "hang guard"); // the loop finishing an earlier read
        }
        assertEquals(1, seed(inbox.next()));
        assertEquals(Thread.currentThread(), inbox.threads.getLast(), "the caller received its frame");
    }

    /** A listener whose {@link #expectsFrames} the test sets. */
    private static final class Expecting extends ThreadRecordingInbox {
        volatile boolean expects;

        @Override
        public boolean expectsFrames() {
            return expects;
        }
    }

    @Test
    void aFrameNobodyWaitsForIsReadAtOnceWhenTheListenerExpectsFrames() throws Exception {
        try (IoLoop loop = new IoLoop(TimeUnit.MILLISECONDS.toNanos(100), () -> { });
                ServerSocketChannel acceptor = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            Expecting inbox = new Expecting();
            inbox.expects = true; // e.g. a report owed to a semaphore's timepoint callback
            SocketChannel[] peer = new SocketChannel[1];
            TcpConnection connection = start(loop, acceptor, inbox, peer);
            connection.rearmDelayNanos = TimeUnit.MINUTES.toNanos(10);
            callerRoundTripWithTheLoopOff(connection, inbox, peer[0]);
            writeFully(peer[0], frame(2)); // nobody waits for it
            assertEquals(2, seed(inbox.next()), "read by the loop, re-armed when the caller returned");
            assertTrue(inbox.threads.getLast().getName().startsWith("ortho-remote-io-"));
            assertFalse(connection.loopStoppedWatching());
            peer[0].close();
        }
    }

    @Test
    void withNothingExpectedTheLoopStaysOffUntilTheLaterRearm() throws Exception {
        try (IoLoop loop = new IoLoop(TimeUnit.MILLISECONDS.toNanos(100), () -> { });
                ServerSocketChannel acceptor = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            Expecting inbox = new Expecting();
            SocketChannel[] peer = new SocketChannel[1];
            TcpConnection connection = start(loop, acceptor, inbox, peer);
            connection.rearmDelayNanos = TimeUnit.MINUTES.toNanos(10);
            callerRoundTripWithTheLoopOff(connection, inbox, peer[0]);
            // callers waiting back to back do not wake the loop per round trip
            assertTrue(connection.loopStoppedWatching(), "the rearm waits for the delay");
            writeFully(peer[0], frame(2));
            long guard = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!connection.receiveWhile(inbox.frames::isEmpty, guard)) { // the next waiting caller reads it
                assertTrue(System.nanoTime() < guard, "hang guard");
            }
            assertEquals(2, seed(inbox.next()));
            peer[0].close();
        }
    }
}
