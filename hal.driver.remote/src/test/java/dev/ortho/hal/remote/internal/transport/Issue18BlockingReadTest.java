package dev.ortho.hal.remote.internal.transport;

import static dev.ortho.hal.remote.internal.transport.ThreadRecordingInbox.frame;
import static dev.ortho.hal.remote.internal.transport.ThreadRecordingInbox.seed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Issue 18: {@link BlockingTcpConnection}, whose receiving threads block in the socket's read.
 * The read role goes between the reader thread and waiting callers (a frame nobody waits for is
 * read by the reader thread; a caller that finds the reader thread in its read gets the role once
 * nothing more is expected and then receives its frame on its own thread); a deadline ends a
 * blocked read without closing (the reader thread asks the peer for a frame);
 * {@link Transport#wakeReceiver} ends an untimed blocked read (the peer is asked for a frame);
 * close ends a blocked read and the reader thread; a peer closing mid-frame closes with
 * UNAVAILABLE; an interrupt that reaches a caller blocked in the read ends its receive and
 * never closes the connection; a virtual thread never reads nor writes the socket; the I/O loop
 * never writes itself. Hang guards only (HangGuard), no timing assertions.
 */
class Issue18BlockingReadTest {
    /** An inbox whose {@link #expectsFrames} the test sets, and which notes the seeds it got. */
    static class Inbox extends ThreadRecordingInbox {
        volatile boolean expecting;
        final java.util.Set<Integer> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();

        @Override
        public void onFrame(ByteBuffer body) {
            seen.add(seed(body));
            super.onFrame(body);
        }

        @Override
        public boolean expectsFrames() {
            return expecting;
        }
    }

    /** A started connection, its peer's end (blocking) and the loop; {@code askPeerForFrame} counted. */
    static final class Fixture implements AutoCloseable {
        final IoLoop loop = new IoLoop(TimeUnit.MILLISECONDS.toNanos(100), () -> { });
        final ServerSocketChannel acceptor;
        final SocketChannel peer;
        final Inbox inbox;
        final AtomicInteger asked = new AtomicInteger();
        final BlockingTcpConnection connection;

        Fixture(Runnable onAsk) throws Exception {
            this(NativeSocket.available(), onAsk);
        }

        /** {@code nativeSocket} false: the {@link SocketStreams} fallback even where a {@link NativeSocket} is available. */
        Fixture(boolean nativeSocket, Runnable onAsk) throws Exception {
            this(nativeSocket, onAsk, new Inbox());
        }

        Fixture(boolean nativeSocket, Runnable onAsk, Inbox inbox) throws Exception {
            this.inbox = inbox;
            acceptor = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
            BlockingSocket socket = BlockingSockets.connect((InetSocketAddress) acceptor.getLocalAddress(), 60_000,
                    nativeSocket);
            assertEquals(nativeSocket, !socket.copies(), "the socket kind asked for");
            peer = acceptor.accept();
            peer.socket().setTcpNoDelay(true);
            connection = new BlockingTcpConnection(loop, socket, 1 << 20, "test peer", () -> {
                asked.incrementAndGet();
                onAsk.run();
            }, Long.MAX_VALUE); // no liveness check here: every finite deadline is given to the socket
            connection.start(inbox);
        }

        void write(ByteBuffer data) throws Exception {
            while (data.hasRemaining()) {
                peer.write(data);
            }
        }

        /** The next frame the peer received (a blocking read of its length and body). */
        ByteBuffer readAtPeer() throws Exception {
            ByteBuffer length = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            while (length.hasRemaining()) {
                assertTrue(peer.read(length) >= 0, "peer end closed");
            }
            ByteBuffer body = ByteBuffer.allocate(length.getInt(0)).order(ByteOrder.LITTLE_ENDIAN);
            while (body.hasRemaining()) {
                assertTrue(peer.read(body) >= 0, "peer end closed");
            }
            return body.flip();
        }

        void awaitRole(int bit, String what) {
            HangGuard.await(() -> (connection.roleBits() & bit) != 0, what, connection::diagnostics);
        }

        /**
         * Until {@code caller} (retrying until it holds the read role) holds it or returned: while
         * the reader thread is in its read and the caller asked for the role, writes a filler frame
         * (seed 0, consumed here), after which the reader thread hands the role over (nothing is expected).
         */
        void handRoleTo(Thread caller) throws Exception {
            long guard = System.nanoTime() + HangGuard.GUARD_NANOS;
            int wantedByCaller = BlockingTcpConnection.PUMP | BlockingTcpConnection.WANTED;
            while ((connection.roleBits() & BlockingTcpConnection.CALLER) == 0 && caller.isAlive()) {
                if ((connection.roleBits() & wantedByCaller) == wantedByCaller) {
                    write(frame(0));
                    assertEquals(0, seed(inbox.next()));
                }
                if (System.nanoTime() - guard >= 0) {
                    HangGuard.expired("the caller did not get the read role", connection::diagnostics);
                }
                java.util.concurrent.locks.LockSupport.parkNanos(100_000);
            }
        }

        @Override
        public void close() throws Exception {
            connection.close(new StatusException(StatusCode.CANCELLED, "test over"));
            peer.close();
            acceptor.close();
            loop.close();
        }
    }

    private static void join(Thread thread, Fixture f) throws InterruptedException {
        thread.join(TimeUnit.NANOSECONDS.toMillis(HangGuard.GUARD_NANOS));
        if (thread.isAlive()) {
            HangGuard.expired(thread.getName() + " did not return", f.connection::diagnostics);
        }
    }

    @Test
    void theReaderThreadReadsUnwaitedFramesAndHandsTheRoleToACallerThatReceivesItsOwn() throws Exception {
        try (Fixture f = new Fixture(() -> { })) {
            f.write(frame(1)); // nobody waits: the reader thread
            assertEquals(1, seed(f.inbox.next()));
            assertTrue(f.inbox.threads.getLast().getName().startsWith("ortho-remote-rx-"), f.inbox.threads.getLast().getName());

            // a caller finds the reader thread in its read: refused, and marks that it wants the role
            f.awaitRole(BlockingTcpConnection.PUMP, "the reader thread reads");
            f.inbox.expecting = true;
            Thread caller = Thread.ofPlatform().name("waiting-caller").start(() -> {
                while (!f.connection.receiveWhile(() -> !f.inbox.seen.contains(4), Long.MAX_VALUE)) {
                    Thread.onSpinWait(); // the reader thread holds the role
                }
            });
            f.awaitRole(BlockingTcpConnection.WANTED, "the caller asked for the role");
            f.write(frame(2)); // a frame is still expected afterwards: the reader thread keeps the role
            assertEquals(2, seed(f.inbox.next()));
            assertTrue(f.inbox.threads.getLast().getName().startsWith("ortho-remote-rx-"));
            assertTrue((f.connection.roleBits() & BlockingTcpConnection.PUMP) != 0, f.connection.diagnostics());

            f.inbox.expecting = false;
            f.write(frame(3)); // nothing more expected: the role goes to the caller
            assertEquals(3, seed(f.inbox.next()));
            f.handRoleTo(caller); // (should the reader thread take it back before the caller got it)
            assertTrue((f.connection.roleBits() & BlockingTcpConnection.CALLER) != 0, f.connection.diagnostics());
            f.write(frame(4)); // the caller's own frame, on its thread
            join(caller, f);
            assertEquals(4, seed(f.inbox.next()));
            assertSame(caller, f.inbox.threads.getLast());

            f.write(frame(5)); // the caller returned: the reader thread reads again
            assertEquals(5, seed(f.inbox.next()));
            assertTrue(f.inbox.threads.getLast().getName().startsWith("ortho-remote-rx-"), f.inbox.threads.getLast().getName());
            assertTrue(f.connection.isOpen());
        }
    }

    @Test
    void twoCallersAndTheReaderThreadNeverReadAtOnce() throws Exception {
        try (Fixture f = new Fixture(() -> { })) {
            f.inbox.twoCallersReceive(f.connection, 400, frames -> {
                for (int i = 1; i <= frames; i++) {
                    f.write(frame(i));
                }
            });
            assertTrue(f.connection.isOpen());
        }
    }

    /** A fixture whose peer answers the connection's request for a frame with frame {@code seed}. */
    private static Fixture answering(int seed) throws Exception {
        return answering(NativeSocket.available(), seed);
    }

    private static Fixture answering(boolean nativeSocket, int seed) throws Exception {
        Fixture[] self = new Fixture[1];
        self[0] = new Fixture(nativeSocket, () -> {
            try {
                self[0].write(frame(seed)); // the peer answers the connection's request for a frame
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        return self[0];
    }

    /**
     * A peer that never answers (it accepted and stays silent) holds neither a caller's deadline
     * nor its interrupt: the socket bounds the caller's read, which ends at the deadline (100 ms)
     * or, interrupted, within a read slice, without asking the peer for anything on a deadline;
     * the connection stays open and receives what the peer sends afterwards. On the streams the
     * bound is what switches the socket to timed reads, so their interrupt case comes after a
     * deadline case. Before the fix both waits stayed in the read until the peer's answer (here:
     * never) and the hang guard failed the test.
     */
    @Test
    void aSilentPeerHoldsNeitherADeadlineNorAnInterruptedReceive() throws Exception {
        for (boolean nativeSocket : socketKinds()) {
            silentPeer(nativeSocket);
        }
    }

    private static void silentPeer(boolean nativeSocket) throws Exception {
        try (Fixture f = new Fixture(nativeSocket, () -> { })) {
            for (int round = 0; round < 2; round++) {
                AtomicBoolean returnedAfterDeadline = new AtomicBoolean();
                Thread caller = Thread.ofPlatform().name("timed-caller").start(() -> {
                    while (true) {
                        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
                        if (f.connection.receiveWhile(() -> true, deadline)) { // only the deadline ends this wait
                            returnedAfterDeadline.set(System.nanoTime() - deadline >= 0);
                            return;
                        }
                        Thread.onSpinWait();
                    }
                });
                f.handRoleTo(caller);
                join(caller, f);
                assertTrue(returnedAfterDeadline.get(), nativeSocket + ": returned at its deadline, not before");
                if (round == 0) { // (afterwards the reader thread may still ask for the interrupted caller)
                    assertEquals(0, f.asked.get(), nativeSocket + ": the socket ended the read, the peer was not asked");
                }

                AtomicBoolean stillInterrupted = new AtomicBoolean();
                Thread interrupted = Thread.ofPlatform().name("interrupted-caller").start(() -> {
                    while (!f.connection.receiveWhile(() -> true, Long.MAX_VALUE)) { // only the interrupt ends this
                        Thread.onSpinWait();
                    }
                    stillInterrupted.set(Thread.currentThread().isInterrupted());
                });
                f.handRoleTo(interrupted);
                HangGuard.await(() -> blockedInRead(interrupted), "the caller blocks in the socket's read",
                        f.connection::diagnostics);
                interrupted.interrupt();
                join(interrupted, f);
                assertTrue(stillInterrupted.get(), nativeSocket + ": the interrupt is kept for the caller");
                assertTrue(f.connection.isOpen(), f.connection.diagnostics());
                f.write(frame(6 + round)); // the connection still receives
                assertEquals(6 + round, seed(f.inbox.next()));
            }
        }
    }

    @Test
    void wakeReceiverEndsAnUntimedBlockedRead() throws Exception {
        try (Fixture f = answering(7)) {
            AtomicBoolean waiting = new AtomicBoolean(true);
            Thread caller = Thread.ofPlatform().name("untimed-caller").start(() -> {
                while (!f.connection.receiveWhile(waiting::get, Long.MAX_VALUE)) {
                    Thread.onSpinWait();
                }
            });
            f.handRoleTo(caller);
            waiting.set(false); // ended without a frame (a host signal): only the wake-up can end the read
            f.connection.wakeReceiver();
            join(caller, f);
            assertEquals(1, f.asked.get());
            assertEquals(7, seed(f.inbox.next()));
            assertTrue(f.connection.isOpen());
        }
    }

    @Test
    void closeEndsABlockedCallerAndTheReaderThread() throws Exception {
        try (Fixture f = new Fixture(() -> { })) {
            Thread caller = Thread.ofPlatform().name("closed-caller").start(() -> {
                while (f.connection.isOpen() && !f.connection.receiveWhile(() -> true, Long.MAX_VALUE)) {
                    Thread.onSpinWait();
                }
            });
            f.handRoleTo(caller);
            StatusException reason = new StatusException(StatusCode.CANCELLED, "closed by the test");
            Thread.ofPlatform().start(() -> f.connection.close(reason)).join();
            join(caller, f);
            assertSame(reason, f.inbox.closed.get(60, TimeUnit.SECONDS));
            join(f.connection.pumpThread(), f);
            assertFalse(f.connection.receiveWhile(() -> true, Long.MAX_VALUE), "closed: no receiving");
        }
    }

    @Test
    void closeEndsTheReaderThreadBlockedInItsRead() throws Exception {
        try (Fixture f = new Fixture(() -> { })) {
            f.awaitRole(BlockingTcpConnection.PUMP, "the reader thread reads");
            f.connection.close(new StatusException(StatusCode.CANCELLED, "closed by the test"));
            join(f.connection.pumpThread(), f);
            assertEquals(StatusCode.CANCELLED, f.inbox.closed.get(60, TimeUnit.SECONDS).code());
        }
    }

    @Test
    void aPeerClosingMidFrameWhileACallerIsBlockedClosesWithUnavailable() throws Exception {
        try (Fixture f = new Fixture(() -> { })) {
            Thread caller = Thread.ofPlatform().name("cut-caller").start(() -> {
                while (f.connection.isOpen() && !f.connection.receiveWhile(f.connection::isOpen, Long.MAX_VALUE)) {
                    Thread.onSpinWait();
                }
            });
            f.handRoleTo(caller);
            ByteBuffer whole = frame(1);
            f.write(whole.limit(whole.limit() - 3));
            f.peer.close();
            join(caller, f);
            StatusException reason = f.inbox.closed.get(60, TimeUnit.SECONDS);
            assertEquals(StatusCode.UNAVAILABLE, reason.code());
            assertTrue(reason.getMessage().contains("inside a frame"), reason.getMessage());
        }
    }

    /**
     * The interrupt reaches the caller while it is blocked in the socket's read (a blocking
     * {@code SocketChannel} would close there): the reader thread asks the peer for a frame (or,
     * on a socket that slices its reads, the slice ends first), the caller returns with its
     * interrupt kept, the connection stays open, and the caller's send with the interrupt
     * pending is written on its own thread.
     */
    @Test
    void anInterruptEndsABlockedReceiveWithoutClosingAndASendWithItPendingIsWritten() throws Exception {
        for (boolean nativeSocket : socketKinds()) {
            interruptEndsABlockedReceive(nativeSocket);
        }
    }

    /** Both socket kinds where this JVM has native access, else the streams. */
    private static boolean[] socketKinds() {
        return NativeSocket.available() ? new boolean[] {true, false} : new boolean[] {false};
    }

    private static void interruptEndsABlockedReceive(boolean nativeSocket) throws Exception {
        try (Fixture f = answering(nativeSocket, 11)) {
            AtomicBoolean stillInterrupted = new AtomicBoolean();
            Thread caller = Thread.ofPlatform().name("interrupted-caller").start(() -> {
                while (!f.connection.receiveWhile(() -> true, Long.MAX_VALUE)) { // only the interrupt ends this
                    Thread.onSpinWait();
                }
                f.connection.send(frame(8));
                stillInterrupted.set(Thread.currentThread().isInterrupted());
            });
            f.handRoleTo(caller);
            HangGuard.await(() -> blockedInRead(caller), "the caller blocks in the socket's read", f.connection::diagnostics);
            caller.interrupt();
            join(caller, f);
            assertTrue(stillInterrupted.get(), "the interrupt is kept for the caller");
            assertTrue(f.asked.get() <= 1, "the reader thread asked the peer for a frame at most once");
            assertEquals(8, seed(f.readAtPeer()));
            assertEquals(0, f.connection.writerHandOffs(), "written on the interrupted caller's thread");
            assertTrue(f.connection.isOpen(), f.connection.diagnostics());
            f.write(frame(12)); // the connection still receives (after the peer's answer, if it was asked)
            int got;
            while ((got = seed(f.inbox.next())) == 11) {
                // the peer's answer, if the reader thread asked
            }
            assertEquals(12, got);
        }
    }

    /** A pending interrupt: the caller does not read (it returns at once), and nothing closes. */
    @Test
    void aPendingInterruptNeitherReadsNorCloses() throws Exception {
        try (Fixture f = new Fixture(() -> { })) {
            AtomicBoolean received = new AtomicBoolean();
            Thread caller = Thread.ofPlatform().name("interrupted-caller").start(() -> {
                Thread.currentThread().interrupt();
                while (!received.get()) {
                    received.set(f.connection.receiveWhile(() -> true, Long.MAX_VALUE)); // returns: it must not block
                    Thread.onSpinWait();
                }
            });
            f.handRoleTo(caller);
            join(caller, f);
            assertTrue(f.connection.isOpen(), f.connection.diagnostics());
        }
    }

    /**
     * A virtual thread never blocks in the socket (the JDK would close it on the thread's
     * interrupt, and switch it to non-blocking mode for good): its receive is refused and the
     * reader thread receives its frame; its send goes through the writer thread; interrupting
     * it leaves the connection open.
     */
    @Test
    void aVirtualThreadNeitherReadsNorWritesTheSocket() throws Exception {
        for (boolean nativeSocket : socketKinds()) {
            virtualThreadNeverTouchesTheSocket(nativeSocket);
        }
    }

    private static void virtualThreadNeverTouchesTheSocket(boolean nativeSocket) throws Exception {
        try (Fixture f = new Fixture(nativeSocket, () -> { })) {
            f.inbox.expecting = true;
            AtomicBoolean refused = new AtomicBoolean();
            Thread virtual = Thread.ofVirtual().name("virtual-caller").start(() -> {
                refused.set(!f.connection.receiveWhile(() -> true, Long.MAX_VALUE));
                f.connection.send(frame(13));
                java.util.concurrent.locks.LockSupport.park(); // until interrupted
            });
            assertEquals(13, seed(f.readAtPeer()));
            f.write(frame(14));
            assertEquals(14, seed(f.inbox.next()));
            assertTrue(f.inbox.threads.getLast().getName().startsWith("ortho-remote-rx-"), f.inbox.threads.getLast().getName());
            virtual.interrupt();
            join(virtual, f);
            assertTrue(refused.get(), "a virtual thread's receive is refused");
            assertTrue(f.connection.writerHandOffs() >= 1, f.connection.diagnostics());
            assertTrue(f.connection.isOpen(), f.connection.diagnostics());
        }
    }

    /** The tests run with native access (surefire's argLine): on Linux x86-64/AArch64 the native socket is what they test. */
    @Test
    void theNativeSocketIsAvailableOnLinuxWithNativeAccess() {
        String os = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        org.junit.jupiter.api.Assumptions.assumeTrue(os.startsWith("linux")
                && (arch.equals("amd64") || arch.equals("aarch64")), "Linux x86-64 or AArch64 only");
        assertTrue(NativeSocket.available(), "native access is enabled for the tests: the native socket must be usable");
    }

    /**
     * A large frame each way, on each socket kind: written from a direct payload on the caller's
     * thread ({@code sendWithPayload}: gathered writes, partial writes resumed) and received
     * straight into a lent direct sink; every byte arrives in order.
     */
    @Test
    void largeFramesGoBothWaysIntact() throws Exception {
        for (boolean nativeSocket : socketKinds()) {
            int size = 900 << 10; // under the fixture's 1 MiB frame limit, several socket calls each way
            java.util.Random random = new java.util.Random(size + (nativeSocket ? 1 : 0));
            byte[] outgoing = new byte[size];
            random.nextBytes(outgoing);
            byte[] incoming = new byte[size];
            random.nextBytes(incoming);
            int offset = dev.ortho.hal.remote.internal.protocol.Protocol.HEADER_BYTES;
            try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared()) {
                ByteBuffer sinkMemory = arena.allocate(size).asByteBuffer();
                java.util.concurrent.CompletableFuture<Void> sunk = new java.util.concurrent.CompletableFuture<>();
                Inbox sinking = new Inbox() {
                    @Override
                    public BodySink bodySink(ByteBuffer prefix, int bodyLength) {
                        return new BodySink(offset, sinkMemory) {
                            @Override
                            protected void complete() {
                                sunk.complete(null);
                            }

                            @Override
                            protected void release() {
                            }
                        };
                    }
                };
                try (Fixture f = new Fixture(nativeSocket, () -> { }, sinking)) {
                    // the peer sends a frame of offset + size body bytes, received into the sink
                    ByteBuffer head = ByteBuffer.allocate(4 + offset).order(ByteOrder.LITTLE_ENDIAN);
                    head.putInt(offset + size).position(4 + offset).flip(); // length, then a header the sink skips
                    f.write(head);
                    f.write(ByteBuffer.wrap(incoming));
                    java.util.concurrent.CompletableFuture.anyOf(sunk, f.inbox.closed).get(60, TimeUnit.SECONDS);
                    assertTrue(sunk.isDone(), nativeSocket + ": the sink completed, the connection did not close: "
                            + f.inbox.closed.getNow(null));
                    byte[] got = new byte[size];
                    sinkMemory.get(0, got);
                    assertTrue(java.util.Arrays.equals(incoming, got), nativeSocket + ": the sink holds the bytes sent");

                    // the caller sends one from direct memory while the peer reads it
                    ByteBuffer payload = arena.allocate(size).asByteBuffer().put(0, outgoing);
                    ByteBuffer frameHead = ByteBuffer.allocate(4 + offset).order(ByteOrder.LITTLE_ENDIAN);
                    frameHead.putInt(offset + size).position(4 + offset).flip();
                    java.util.concurrent.CompletableFuture<ByteBuffer> atPeer = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                        try {
                            return f.readAtPeer();
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    });
                    f.connection.sendWithPayload(frameHead, payload);
                    ByteBuffer body = atPeer.get(60, TimeUnit.SECONDS);
                    byte[] sent = new byte[size];
                    body.get(offset, sent);
                    assertTrue(java.util.Arrays.equals(outgoing, sent), nativeSocket + ": the peer got the bytes sent");
                    assertTrue(f.connection.isOpen(), f.connection.diagnostics());
                }
            }
        }
    }

    /** Whether {@code thread} is blocked in the socket's read (the JDK's socket read on its stack). */
    private static boolean blockedInRead(Thread thread) {
        for (StackTraceElement frame : thread.getStackTrace()) {
            String where = frame.getClassName() + "." + frame.getMethodName();
            if (where.contains("NioSocketImpl.read") || where.contains("NativeSocket.read")) {
                return true;
            }
        }
        return false;
    }

    @Test
    void theLoopNeverWritesItself() throws Exception {
        try (Fixture f = new Fixture(() -> { })) {
            f.loop.execute(() -> f.connection.send(frame(9)));
            assertEquals(9, seed(f.readAtPeer()));
            f.connection.sendDeferred(frame(10)); // nobody flushes: the loop has it written soon
            assertEquals(10, seed(f.readAtPeer())); // (the writer thread may still be draining 9 and write it)
            HangGuard.await(() -> f.connection.writerHandOffs() >= 2, "the loop's flush handed to the writer thread",
                    f.connection::diagnostics);
            assertTrue(f.connection.isOpen());
        }
    }
}
