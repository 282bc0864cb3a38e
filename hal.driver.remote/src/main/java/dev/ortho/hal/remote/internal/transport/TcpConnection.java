package dev.ortho.hal.remote.internal.transport;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link Transport} over a non-blocking TCP socket driven by an {@link IoLoop}.
 *
 * <p>Receiving: the length prefix is checked against the current frame limit before any body
 * buffer is allocated, so an oversized or negative length closes the connection with
 * INVALID_ARGUMENT without allocating; a peer that closes mid-frame closes it with UNAVAILABLE.
 * A server starts a connection with a small limit ({@link Protocol#HANDSHAKE_MAX_FRAME_BYTES})
 * and raises it to {@code maxFrameBytes} once the peer authenticated ({@link #authenticated()}),
 * so an unauthenticated peer makes it hold a few hundred bytes at most. A body buffer grows with
 * the bytes that actually arrive ({@value #FIRST_BODY_CHUNK} bytes first, then doubling), so a
 * peer that announces a large frame and sends little holds at most twice what it sent.
 * Bytes arrive through a receive buffer ({@value #RECEIVE_BUFFER_BYTES} bytes once authenticated,
 * a few hundred before), so a burst of small frames costs one read, not two per frame.
 * Sending: the sender writes directly when no other write is in progress (no selector wake-up
 * on the common path) and hands the rest to the loop when the socket buffer is full; queued
 * frames go out together in one gathering write (heap frames in {@value #IO_SLICE_BYTES}-byte
 * slices); {@link #sendDeferred} queues a frame for the next write (a burst); a peer that
 * lets more than four maximum frames pile up unread is disconnected with RESOURCE_EXHAUSTED.
 *
 * <p><b>Receiving on a waiting caller's thread</b> ({@link #receiveWhile}, plain TCP only). A
 * caller that waits for the peer takes the read role (held by whoever parses received bytes:
 * the loop or one caller) and blocks in a selector of its own on this channel, so the kernel
 * wakes the caller itself when the reply arrives: a round trip crosses caller → peer → caller,
 * like a blocking socket, not caller → peer → loop → caller. If the loop is woken for the same
 * bytes meanwhile, it finds the role taken, stops watching reads and marks the role; the caller
 * hands the role back on return and, if so marked, has the loop watch reads again (and parse
 * what the caller left in the receive buffer): {@link ReadRole}. It does so at once when a frame
 * may come that nobody is receiving for ({@link Transport.Listener#expectsFrames}: a reply a
 * parked caller waits for, a report owed to a timepoint callback; or the rest of a frame), else
 * about {@link #REARM_NANOS} later, so callers waiting back to back do not wake the loop per
 * round trip.
 *
 * <p><b>Bulk.</b> A caller sending a frame with a large payload writes it itself
 * ({@link #sendWithPayload}: from the payload's memory, blocking while the socket is full; no
 * frame is built, nothing is handed to the loop). A frame queued with a lent payload
 * ({@link #sendLent}) is written from the payload's memory, which is given back once written. A
 * large received frame whose listener lends a {@link BodySink} (the memory its bytes are bound
 * for) is read straight into it: no body buffer, no copy; a frame nobody lends memory for is
 * received into a body as above.
 *
 * <p><b>Parts and threads.</b> This class owns the channel, its selection key, the TLS layer and
 * the close, and decides who writes and who reads when. Its parts: {@link OutboundQueue} (the
 * frames to send, the write role, lent payloads), {@link FrameReceiver} (the frame receive state
 * machine, run only by the holder of the {@link ReadRole}), {@link CallerIo} (a caller's blocking
 * write of a large frame and receive while waiting, and the selectors they block in). The I/O
 * loop thread runs {@link #onReady}, the TLS handshake, rearms and hand-offs; sends, flushes and
 * {@link #close} may come from any thread; interest-op changes happen on the loop thread only.
 */
public final class TcpConnection implements Transport, IoLoop.Handler {
    /** Deferred bytes at which {@link #sendDeferred} writes at once (a burst still costs few writes). */
    static final int DEFERRED_FLUSH_BYTES = 8 << 10;
    /** How long deferred frames may wait for a flush before the loop writes them. */
    static final long DEFERRED_FLUSH_NANOS = 200_000;
    /** Largest piece of a heap buffer one socket call is given (the JDK copies heap buffers whole). */
    static final int IO_SLICE_BYTES = 256 << 10;
    /** Capacity of the receive buffer of an authenticated connection. */
    static final int RECEIVE_BUFFER_BYTES = 64 << 10;
    /** Capacity of a body buffer before the body's bytes arrive. */
    static final int FIRST_BODY_CHUNK = 64 << 10;

    private final IoLoop loop;
    private final SocketChannel channel;
    private final String peer;
    /** The frames to send and the write role (held by whoever writes: a sender thread or the loop). */
    private final OutboundQueue out;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Who parses received bytes (the loop or one receiving caller), and whether the loop watches reads. */
    private final ReadRole readRole = new ReadRole();
    /**
     * How long after a receiving caller returns the loop starts watching reads again: callers that
     * wait back to back keep the role without waking the loop per round trip; a frame nobody
     * waits for meanwhile is read within about this long (the selector's millisecond granularity).
     */
    static final long REARM_NANOS = 1_000_000;
    private final java.util.concurrent.atomic.AtomicLong handOffs = new java.util.concurrent.atomic.AtomicLong();
    private volatile Listener listener;
    private volatile SelectionKey key;
    private final long openedNanos = System.nanoTime();
    private volatile StatusException closeAfterFlush;
    /** Parses received bytes into frames (run by the holder of {@link #readRole}). */
    private final FrameReceiver receiver;
    /** Blocking reads and writes on callers' threads (plain TCP). */
    private final CallerIo callerIo;
    /** {@link #REARM_NANOS}, or longer in tests that must see that a prompt rearm was asked for. */
    long rearmDelayNanos = REARM_NANOS;
    /** TLS between the frames and the socket, or null for plain TCP. */
    private final TlsLayer tls;
    private final boolean[] tlsFlag = new boolean[1]; // loop thread (handshake)

    /**
     * @param channel a connected channel; it is switched to non-blocking mode and owned from now on
     * @param peer a name for messages, e.g. the remote address
     */
    public TcpConnection(IoLoop loop, SocketChannel channel, int maxFrameBytes, String peer) throws IOException {
        this(loop, channel, maxFrameBytes, maxFrameBytes, peer);
    }

    /**
     * @param initialMaxFrameBytes the frame limit until {@link #authenticated()} (a server's
     *     handshake limit)
     */
    public TcpConnection(IoLoop loop, SocketChannel channel, int initialMaxFrameBytes, int maxFrameBytes, String peer)
            throws IOException {
        this(loop, channel, initialMaxFrameBytes, maxFrameBytes, peer, null);
    }

    /**
     * @param tlsEngine an engine in client or server mode for TLS over this connection (the
     *     handshake runs first; frames sent meanwhile wait), or null for plain TCP
     */
    public TcpConnection(IoLoop loop, SocketChannel channel, int initialMaxFrameBytes, int maxFrameBytes, String peer,
            javax.net.ssl.SSLEngine tlsEngine) throws IOException {
        this.tls = tlsEngine == null ? null : new TlsLayer(tlsEngine);
        this.loop = loop;
        this.channel = channel;
        this.peer = peer;
        ConnectionLink link = new ConnectionLink() { // what the parts need of this connection
            @Override
            public boolean closed() {
                return TcpConnection.this.closed();
            }

            @Override
            public void close(StatusException reason) {
                TcpConnection.this.close(reason);
            }

            @Override
            public StatusException unavailable(String why) {
                return TcpConnection.this.unavailable(why);
            }

            @Override
            public void readOnLoopSoon() {
                TcpConnection.this.readOnLoopSoon();
            }

            @Override
            public void flushFromLoop() {
                TcpConnection.this.flushFromLoop();
            }
        };
        this.out = new OutboundQueue(link, channel, tls, peer, 4L * maxFrameBytes);
        this.receiver = new FrameReceiver(link, channel, tls, peer, initialMaxFrameBytes, maxFrameBytes);
        this.callerIo = new CallerIo(this, channel, loop, out, receiver, readRole);
        channel.configureBlocking(false);
        channel.socket().setTcpNoDelay(true);
    }

    /** Starts reading, delivering to {@code listener}. Call once. */
    public void start(Listener listener) {
        this.listener = listener;
        receiver.listener(listener);
        loop.execute(() -> {
            if (closed.get()) {
                return;
            }
            try {
                key = loop.register(channel, SelectionKey.OP_READ, this);
                if (tls != null) {
                    handshakeStep();
                } else if (!out.isEmpty()) {
                    flushFromLoop();
                }
            } catch (IOException e) {
                close(unavailable("cannot register: " + e.getMessage()));
            }
        });
    }

    public String peer() {
        return peer;
    }

    @Override
    public void send(ByteBuffer frame) {
        if (out.enqueue(frame)) {
            tryWrite();
        }
    }

    @Override
    public void sendAll(java.util.List<ByteBuffer> frames) {
        if (out.enqueueAll(frames)) {
            tryWrite();
        }
    }

    /**
     * Queues without writing. The caller writes the queue itself once it holds
     * {@value #DEFERRED_FLUSH_BYTES} bytes; otherwise the first deferred frame asks the loop to
     * write in about {@value #DEFERRED_FLUSH_NANOS} ns (within a millisecond or two), should no
     * {@link #send} or {@link #flush} come first: a deferred frame is never stranded.
     */
    @Override
    public void sendDeferred(ByteBuffer frame) {
        out.enqueueDeferred(frame, loop, this::tryWrite, this::flushFromLoop);
    }

    @Override
    public void executeLater(Runnable task, long delayNanos) {
        loop.executeLater(task, delayNanos);
    }

    @Override
    public void flush() {
        if (!out.isEmpty()) {
            tryWrite();
        }
    }

    /**
     * Writes the frame on the calling thread (plain TCP; otherwise as {@link Transport}'s default):
     * takes the write role (frames queued before go first), writes {@code head} and {@code payload}
     * in gathering writes (a heap payload in {@value #IO_SLICE_BYTES}-byte slices) and blocks in a
     * selector of its own while the socket is full, so a bulk transfer costs neither a copy into
     * a frame nor a hand-off to the loop per socket-buffer-full. Frames other threads send
     * meanwhile queue behind it. Returns once every byte is written or the connection closed (a
     * peer that stops reading is closed by the liveness deadline, which wakes the writer); an
     * interrupt does not cut a frame short (it is kept for the caller).
     */
    @Override
    public void sendWithPayload(ByteBuffer head, ByteBuffer payload) {
        if (tls != null || key == null || loop.inLoop()) {
            Transport.super.sendWithPayload(head, payload);
            return;
        }
        callerIo.write(head, payload);
    }

    /**
     * Queues the frame {@code head} then {@code payload} (never blocks) and runs {@code returned}
     * once {@code payload}'s memory is no longer needed: when its last byte is written, or once
     * the connection closed and no writer can touch it any more (possibly at once, on this
     * thread). The payload is written from its own memory (no copy into a frame); TLS encrypts
     * from it as it does from any frame.
     */
    @Override
    public void sendLent(ByteBuffer head, ByteBuffer payload, Runnable returned) {
        if (out.enqueueLent(head, payload, returned)) {
            tryWrite();
        }
    }

    /** Writes what is queued on the caller's thread unless another writer holds the socket. */
    private void tryWrite() {
        if (key != null && (tls == null || !tls.handshaking()) && out.tryAcquire()) {
            // direct write by the sender: non-blocking, so safe from timepoint callbacks too
            try {
                if (out.drain()) {
                    finishWriting();
                } else {
                    handToLoop();
                }
            } catch (IOException e) {
                out.release();
                close(unavailable("write failed: " + e.getMessage()));
            }
        }
    }

    /** Advances the TLS handshake (loop thread); once done, sends what was queued and reads what came. */
    private void handshakeStep() {
        try {
            boolean done = tls.handshake(channel, tlsFlag);
            SelectionKey k = key;
            if (!done) {
                if (k != null && k.isValid()) {
                    k.interestOps(tlsFlag[0] ? k.interestOps() | SelectionKey.OP_WRITE
                            : k.interestOps() & ~SelectionKey.OP_WRITE);
                }
                return;
            }
            if (k != null && k.isValid()) {
                k.interestOps(k.interestOps() & ~SelectionKey.OP_WRITE);
            }
            flushFromLoop();
            readFromLoop(); // the peer's first frames may have come with its last handshake message
        } catch (IOException e) {
            close(unavailable("TLS handshake failed: " + e.getMessage()));
        }
    }

    /** Releases the write role; re-acquires it if a frame slipped in meanwhile. */
    void finishWriting() throws IOException {
        while (true) {
            out.release();
            if (closeAfterFlush != null && out.isEmpty()) {
                close(closeAfterFlush);
                return;
            }
            if (out.isEmpty() || !out.tryAcquire()) {
                return;
            }
            if (!out.drain()) {
                handToLoop();
                return;
            }
        }
    }

    /**
     * The socket is full: gives up the write role and lets the loop continue once the socket is
     * writable (the partly written frame keeps its position, so whoever writes next resumes it).
     */
    private void handToLoop() {
        handOffs.incrementAndGet();
        out.release();
        loop.execute(this::flushFromLoop);
    }

    /** How often a sender found the socket full and handed the rest of its writing to the loop (a diagnostic). */
    long handOffs() {
        return handOffs.get();
    }

    /** Whether the loop stopped watching reads because a caller held the read role (a diagnostic). */
    boolean loopStoppedWatching() {
        return readRole.loopOff();
    }

    void flushFromLoop() {
        SelectionKey k = key;
        if (k == null || !k.isValid() || (tls != null && tls.handshaking())) {
            return;
        }
        if (!out.tryAcquire()) {
            // a sender is writing; it hands over again if the socket fills. Stop watching for
            // writability meanwhile: a caller writing a large frame may hold the socket for long,
            // and a writable socket would wake this loop again and again
            k.interestOps(k.interestOps() & ~SelectionKey.OP_WRITE);
            return;
        }
        try {
            if (out.drain()) {
                key.interestOps(key.interestOps() & ~SelectionKey.OP_WRITE);
                finishWriting();
            } else {
                key.interestOps(key.interestOps() | SelectionKey.OP_WRITE);
                out.release();
            }
        } catch (IOException e) {
            out.release();
            close(unavailable("write failed: " + e.getMessage()));
        }
    }

    @Override
    public void onReady(SelectionKey readyKey) throws IOException {
        if (tls != null && tls.handshaking()) {
            handshakeStep();
            return;
        }
        if (readyKey.isWritable()) {
            flushFromLoop();
        }
        if (readyKey.isValid() && readyKey.isReadable()) {
            readFromLoop();
        }
    }

    /** Reads on the loop thread if no caller holds the read role; else stops watching reads until it returns. */
    private void readFromLoop() throws IOException {
        if (readRole.takeForLoop()) {
            try {
                receiver.read();
            } finally {
                readRole.releaseByLoop();
            }
            return;
        }
        SelectionKey k = key; // loop thread: interest changes stay in order with OP_WRITE's
        if (k != null && k.isValid()) {
            k.interestOps(k.interestOps() & ~SelectionKey.OP_READ);
        }
        // the caller has the loop watch again when it hands the role back
    }

    /**
     * Has the loop read what was already received (decrypted, or frames left after a per-ready
     * cap) while the socket may be drained: no readiness would come for those bytes.
     */
    void readOnLoopSoon() {
        loop.execute(this::readFromLoopOrClose);
    }

    /**
     * {@link #readFromLoop} for a task the loop runs (not a readiness, whose failures reach
     * {@link #onFailure}): a failure closes the connection with UNAVAILABLE naming it, be it an
     * I/O error or a RuntimeException (e.g. from a lent {@link BodySink}), which the loop would
     * otherwise only log, leaving the connection open with a frame half received.
     */
    private void readFromLoopOrClose() {
        try {
            readFromLoop();
        } catch (IOException | RuntimeException e) {
            close(unavailable("read failed: " + (e.getMessage() == null || e instanceof RuntimeException
                    ? e.toString() : e.getMessage())));
        }
    }

    /**
     * Loop thread: watches reads again after callers held the role, and parses what they left;
     * if a caller holds the role again, leaves it to that caller's return.
     */
    void watchReadsAgain() {
        int found = readRole.rearm();
        if (found == ReadRole.CALLER_HOLDS) {
            return; // its return schedules this again
        }
        SelectionKey k = key;
        if (k == null || !k.isValid() || closed.get()) {
            return;
        }
        if (found == ReadRole.WATCH_AND_READ) {
            k.interestOps(k.interestOps() | SelectionKey.OP_READ);
        }
        readFromLoopOrClose();
    }

    /**
     * Receives on the caller's thread while {@code waiting} holds (see the class comment); plain
     * TCP only (TLS reads may have to write, which stays on the loop). False if the read role
     * is taken or the connection is not ready.
     */
    @Override
    public boolean receiveWhile(java.util.function.BooleanSupplier waiting, long deadlineNanos) {
        if (tls != null || key == null || closed.get() || !readRole.takeForCaller()) {
            return false;
        }
        callerIo.receive(waiting, deadlineNanos);
        return true;
    }

    /** {@link Transport.Listener#expectsFrames}; true if it fails (a prompt rearm is always safe). */
    boolean expectsFrames() {
        try {
            return listener.expectsFrames();
        } catch (RuntimeException e) {
            return true;
        }
    }

    @Override
    public void receiveOnOwnThread() {
        if (readRole.loopOff()) {
            loop.execute(this::watchReadsAgain);
        }
    }

    /** Wakes a caller blocked in {@link #receiveWhile} (its condition may have changed without a frame). */
    @Override
    public void wakeReceiver() {
        callerIo.wakeReceiver();
    }


    @Override
    public void onFailure(Exception failure) {
        close(unavailable(failure.getMessage() == null ? failure.toString() : failure.getMessage()));
    }

    @Override
    public void close(StatusException reason) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        loop.execute(() -> {
            SelectionKey k = key;
            if (k != null) {
                k.cancel();
            }
            try {
                channel.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        });
        callerIo.closeSelectors(); // wakes a caller blocked reading or writing; it returns
        receiver.abortSink(); // no byte lands in lent memory from now on (the reader may still be in a read)
        out.returnLent(); // payloads queued and not written: given back (by the writer as it lets go, if one writes now)
        Listener l = listener;
        if (l != null) {
            l.onClosed(reason);
        }
    }

    @Override
    public void closeAfterFlush(StatusException reason) {
        closeAfterFlush = reason;
        if (out.tryAcquire()) {
            try {
                finishWriting();
            } catch (IOException e) {
                out.release(); // finishWriting's drain threw holding the role
                close(reason);
            }
        }
    }

    /**
     * Bytes allocated now for a partly received frame (0 between frames), read on the loop
     * thread: what a peer that announced a frame makes this connection hold. Blocks the caller
     * until the loop runs; for diagnostics and tests, never on the loop thread.
     */
    public int receiveBufferBytes() {
        java.util.concurrent.CompletableFuture<Integer> bytes = new java.util.concurrent.CompletableFuture<>();
        loop.execute(() -> bytes.complete(receiver.bodyBytes()));
        try {
            return bytes.get(30, java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new StatusException(StatusCode.DEADLINE_EXCEEDED, "the I/O loop of " + peer + " did not answer");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StatusException(StatusCode.ABORTED, "interrupted while asking the I/O loop of " + peer);
        }
    }

    /** The peer authenticated: frames up to the full maximum are accepted from now on. */
    @Override
    public void authenticated() {
        receiver.authenticated();
    }

    @Override
    public boolean isOpen() {
        return !closed.get();
    }

    @Override
    public long queuedBytes() {
        return out.queuedBytes();
    }

    @Override
    public long lastReceiveNanos() {
        return receiver.lastReceiveNanos();
    }

    /** When this connection was made. */
    @Override
    public long peerSinceNanos() {
        return openedNanos;
    }

    @Override
    public String diagnostics() {
        SelectionKey k = key;
        String interest;
        try {
            interest = k == null ? "unregistered" : !k.isValid() ? "cancelled" : "interestOps=" + k.interestOps();
        } catch (java.nio.channels.CancelledKeyException e) {
            interest = "cancelled";
        }
        return "tcp to " + peer + " closed=" + closed.get() + " " + out.diagnostics() + " handOffs=" + handOffs.get()
                + " readRole=" + readRole.bits() + " " + interest;
    }

    /** Whether the connection closed (any thread). */
    boolean closed() {
        return closed.get();
    }

    StatusException unavailable(String why) {
        return new StatusException(StatusCode.UNAVAILABLE, "connection to " + peer + ": " + why);
    }
}
