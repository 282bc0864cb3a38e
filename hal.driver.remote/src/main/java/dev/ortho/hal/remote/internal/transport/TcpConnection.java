package dev.ortho.hal.remote.internal.transport;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
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
 */
public final class TcpConnection implements Transport, IoLoop.Handler {
    private static final int BATCH = 64;
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
    private final Queue<ByteBuffer> outbound = new ConcurrentLinkedQueue<>();
    /** Bytes queued and not yet written; a peer that stops reading cannot make this grow without bound. */
    private final java.util.concurrent.atomic.AtomicLong queuedBytes = new java.util.concurrent.atomic.AtomicLong();
    private final long maxQueuedBytes;
    /** Held by whoever is writing: a sender thread or the loop. */
    private final AtomicBoolean writing = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Who parses received bytes (the loop or one receiving caller), and whether the loop watches reads. */
    private final ReadRole readRole = new ReadRole();
    /**
     * How long after a receiving caller returns the loop starts watching reads again: callers that
     * wait back to back keep the role without waking the loop per round trip; a frame nobody
     * waits for meanwhile is read within about this long (the selector's millisecond granularity).
     */
    static final long REARM_NANOS = 1_000_000;
    /** The selector a receiving caller blocks in (opened at first use; guarded by the read role). */
    private volatile java.nio.channels.Selector callerSelector;
    /** Longest one block of a receiving caller, so conditions nobody wakes it for are seen. */
    static final long CALLER_SELECT_MILLIS = 50;
    private final java.util.concurrent.atomic.AtomicLong handOffs = new java.util.concurrent.atomic.AtomicLong();
    /** A loop task will write what {@link #sendDeferred} queued. */
    private final AtomicBoolean flushScheduled = new AtomicBoolean();
    private final ByteBuffer[] batch = new ByteBuffer[BATCH];
    /** Payloads queued by {@link #sendLent} and what gives each back (by identity; guarded by {@link #outbound}'s monitor). */
    private final java.util.Map<ByteBuffer, Runnable> lent = new java.util.IdentityHashMap<>();
    /** {@link #lent}'s size (written under the monitor; read without it as a hint). */
    private volatile int lentCount;
    /** The frames {@link #batch} holds or slices. */
    private final ByteBuffer[] sources = new ByteBuffer[BATCH];
    private volatile Listener listener;
    private volatile SelectionKey key;
    private final long openedNanos = System.nanoTime();
    private volatile StatusException closeAfterFlush;
    /** Parses received bytes into frames (run by the holder of {@link #readRole}). */
    private final FrameReceiver receiver;
    /** The selector a caller writing a large frame blocks in until the socket takes bytes (guarded by {@code writing}). */
    private volatile java.nio.channels.Selector writeSelector;
    /** {@link #REARM_NANOS}, or longer in tests that must see that a prompt rearm was asked for. */
    long rearmDelayNanos = REARM_NANOS;
    /** TLS between the frames and the socket, or null for plain TCP. */
    private final TlsLayer tls;
    private final boolean[] tlsFlag = new boolean[1]; // loop thread (handshake) or the writer (write)

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
        this.maxQueuedBytes = 4L * maxFrameBytes;
        this.peer = peer;
        this.receiver = new FrameReceiver(this, channel, tls, peer, initialMaxFrameBytes, maxFrameBytes);
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
                } else if (!outbound.isEmpty()) {
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
        if (enqueue(frame)) {
            tryWrite();
        }
    }

    @Override
    public void sendAll(java.util.List<ByteBuffer> frames) {
        boolean queued = false;
        for (ByteBuffer frame : frames) {
            queued |= enqueue(frame);
        }
        if (queued) {
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
        if (!enqueue(frame)) {
            return;
        }
        if (queuedBytes.get() >= DEFERRED_FLUSH_BYTES) {
            tryWrite();
        } else if (flushScheduled.compareAndSet(false, true)) {
            loop.executeLater(() -> {
                flushScheduled.set(false);
                flushFromLoop();
            }, DEFERRED_FLUSH_NANOS);
        }
    }

    @Override
    public void executeLater(Runnable task, long delayNanos) {
        loop.executeLater(task, delayNanos);
    }

    @Override
    public void flush() {
        if (!outbound.isEmpty()) {
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
        boolean interrupted = false;
        if (!acquireWriting()) {
            return; // closed: frames sent after close are dropped
        }
        try {
            while (!drain()) { // what this and other threads queued before goes first
                interrupted |= awaitWritable();
            }
            ByteBuffer[] parts = {head, null};
            while (head.hasRemaining() || payload.hasRemaining()) {
                ByteBuffer piece = payload.isDirect() || payload.remaining() <= IO_SLICE_BYTES ? payload
                        : payload.slice(payload.position(), IO_SLICE_BYTES);
                parts[1] = piece;
                long presented = head.remaining() + piece.remaining();
                long written = channel.write(parts, 0, 2);
                if (piece != payload) {
                    payload.position(payload.position() + piece.position());
                }
                if (written < presented) {
                    interrupted |= awaitWritable(); // the socket is full
                }
            }
        } catch (IOException e) {
            close(unavailable("write failed: " + e.getMessage()));
        } catch (java.nio.channels.ClosedSelectorException e) {
            // closed meanwhile; close() has told the listener
        } finally {
            try {
                finishWriting(); // frames queued meanwhile: written now, or handed to the loop
            } catch (IOException e) {
                releaseWriting();
                close(unavailable("write failed: " + e.getMessage()));
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Takes {@code writing}, waiting while another thread holds it; false if the connection closed. */
    private boolean acquireWriting() {
        for (int round = 0; !writing.compareAndSet(false, true); round++) {
            if (closed.get()) {
                return false;
            }
            if (round < 64) {
                Thread.onSpinWait();
            } else {
                java.util.concurrent.locks.LockSupport.parkNanos(this, 20_000);
            }
        }
        if (closed.get()) {
            releaseWriting();
            return false;
        }
        return true;
    }

    /**
     * Blocks the holder of {@code writing} until the socket may take bytes again (at most
     * {@value #CALLER_SELECT_MILLIS} ms; close() wakes it); whether the thread was interrupted
     * (the flag is cleared, so the select blocks, and the caller restores it).
     */
    private boolean awaitWritable() throws IOException {
        java.nio.channels.Selector selector = writeSelector;
        if (selector == null) {
            selector = ownSelector(SelectionKey.OP_WRITE, opened -> writeSelector = opened);
        }
        boolean interrupted = Thread.interrupted();
        selector.select(CALLER_SELECT_MILLIS);
        selector.selectedKeys().clear();
        if (closed.get()) {
            throw new java.nio.channels.ClosedSelectorException();
        }
        return interrupted | Thread.interrupted();
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
        if (!enqueue(head, payload, returned)) {
            returned.run(); // closed: it was never queued
            return;
        }
        if (closed.get()) {
            returnLent(); // close() may have returned what was lent before this was
        }
        tryWrite();
    }

    /** Adds {@code frame} to the outbound queue; false if closed or over the queue limit (then closed). */
    private boolean enqueue(ByteBuffer frame) {
        return enqueue(frame, null, null);
    }

    /**
     * Adds {@code frame} and, unless null, the lent {@code payload} right behind it (nothing of
     * another thread's comes between) to the outbound queue; false if closed or over the queue
     * limit (then closed). Enqueuers hold the queue's monitor, so a frame and its payload stay together.
     */
    private boolean enqueue(ByteBuffer frame, ByteBuffer payload, Runnable returned) {
        if (closed.get()) {
            return false;
        }
        long bytes = frame.remaining() + (payload == null ? 0 : payload.remaining());
        if (queuedBytes.addAndGet(bytes) > maxQueuedBytes) {
            close(new StatusException(StatusCode.RESOURCE_EXHAUSTED, "more than " + maxQueuedBytes
                    + " bytes are waiting to be sent to " + peer + ", which is not reading them"));
            return false;
        }
        synchronized (outbound) {
            outbound.add(frame);
            if (payload != null) {
                lent.put(payload, returned);
                lentCount++;
                outbound.add(payload);
            }
        }
        return true;
    }

    /** Lets go of {@code writing}; if the connection closed meanwhile, returns what was lent. */
    private void releaseWriting() {
        writing.set(false);
        if (lentCount != 0 && closed.get()) {
            returnLent();
        }
    }

    /** A written buffer left the queue (holder of {@code writing}): if it was lent, gives it back. */
    private void giveBack(ByteBuffer gone) {
        Runnable returned;
        synchronized (outbound) {
            returned = lent.remove(gone);
            if (returned != null) {
                lentCount--;
            }
        }
        if (returned != null) {
            runReturn(returned);
        }
    }

    /**
     * The connection closed: gives back everything still lent, once no writer can read it (this
     * takes {@code writing}; if another thread holds it, that thread does this as it lets go).
     */
    private void returnLent() {
        if (!writing.compareAndSet(false, true)) {
            return;
        }
        java.util.List<Runnable> returns;
        try {
            synchronized (outbound) {
                returns = new java.util.ArrayList<>(lent.values());
                lent.clear();
                lentCount = 0;
            }
            returns.forEach(TcpConnection::runReturn);
        } finally {
            writing.set(false);
        }
    }

    private static void runReturn(Runnable returned) {
        try {
            returned.run();
        } catch (RuntimeException e) {
            org.slf4j.LoggerFactory.getLogger(TcpConnection.class).warn("giving back a sent payload failed", e);
        }
    }

    /** Writes what is queued on the caller's thread unless another writer holds the socket. */
    private void tryWrite() {
        if (key != null && (tls == null || !tls.handshaking()) && writing.compareAndSet(false, true)) {
            // direct write by the sender: non-blocking, so safe from timepoint callbacks too
            try {
                if (drain()) {
                    finishWriting();
                } else {
                    handToLoop();
                }
            } catch (IOException e) {
                releaseWriting();
                close(unavailable("write failed: " + e.getMessage()));
            }
        }
    }

    /**
     * Writes queued frames, up to {@link #BATCH} per gathering write (one system call for a burst
     * of small frames); true if the queue emptied, false if the socket is full. Caller holds
     * {@code writing}, which also guards {@link #batch}.
     */
    private boolean drain() throws IOException {
        if (tls != null) {
            return drainTls();
        }
        while (true) {
            int n = 0;
            for (ByteBuffer frame : outbound) {
                // a heap frame is copied whole into a temporary direct buffer by each write; a
                // slice bounds that copy to what one write can take (no quadratic copying)
                sources[n] = frame;
                boolean whole = frame.isDirect() || frame.remaining() <= IO_SLICE_BYTES;
                batch[n++] = whole ? frame : frame.slice(frame.position(), IO_SLICE_BYTES);
                if (!whole || n == BATCH) {
                    break; // nothing may follow a slice: the rest of its frame comes first
                }
            }
            if (n == 0) {
                return true;
            }
            long presented = 0;
            for (int i = 0; i < n; i++) {
                presented += batch[i].remaining();
            }
            long written = channel.write(batch, 0, n);
            queuedBytes.addAndGet(-written);
            int done = 0;
            for (int i = 0; i < n; i++) {
                if (batch[i] != sources[i]) {
                    sources[i].position(sources[i].position() + batch[i].position());
                }
            }
            while (done < n && !sources[done].hasRemaining()) {
                ByteBuffer gone = outbound.poll(); // only the holder of `writing` removes, so the head is sources[done]
                if (lentCount != 0) {
                    giveBack(gone);
                }
                done++;
            }
            java.util.Arrays.fill(batch, 0, n, null);
            java.util.Arrays.fill(sources, 0, n, null);
            if (done < n && written < presented) {
                return false; // the socket is full
            } // else every byte presented went out (a slice whole): the socket may take more
        }
    }

    /** {@link #drain()} through TLS: one frame at a time, encrypted as the socket takes it. */
    private boolean drainTls() throws IOException {
        if (!tls.flushNetOut(channel)) {
            return false;
        }
        ByteBuffer frame;
        while ((frame = outbound.peek()) != null || tls.wantsWrap()) {
            ByteBuffer next = frame == null ? ByteBuffer.allocate(0) : frame;
            long consumed = tls.write(channel, next, tlsFlag);
            queuedBytes.addAndGet(-consumed);
            if (!tlsFlag[0]) {
                return false;
            }
            if (frame != null) {
                ByteBuffer gone = outbound.poll(); // only the holder of `writing` removes
                if (lentCount != 0) {
                    giveBack(gone);
                }
            }
        }
        return true;
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

    /** Releases {@code writing}; re-acquires it if a frame slipped in meanwhile. */
    private void finishWriting() throws IOException {
        while (true) {
            releaseWriting();
            if (closeAfterFlush != null && outbound.isEmpty()) {
                close(closeAfterFlush);
                return;
            }
            if (outbound.isEmpty() || !writing.compareAndSet(false, true)) {
                return;
            }
            if (!drain()) {
                handToLoop();
                return;
            }
        }
    }

    /**
     * The socket is full: gives up {@code writing} and lets the loop continue once the socket is
     * writable (the partly written frame keeps its position, so whoever writes next resumes it).
     */
    private void handToLoop() {
        handOffs.incrementAndGet();
        releaseWriting();
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
        if (!writing.compareAndSet(false, true)) {
            // a sender is writing; it hands over again if the socket fills. Stop watching for
            // writability meanwhile: a caller writing a large frame may hold the socket for long,
            // and a writable socket would wake this loop again and again
            k.interestOps(k.interestOps() & ~SelectionKey.OP_WRITE);
            return;
        }
        try {
            if (drain()) {
                key.interestOps(key.interestOps() & ~SelectionKey.OP_WRITE);
                finishWriting();
            } else {
                key.interestOps(key.interestOps() | SelectionKey.OP_WRITE);
                releaseWriting();
            }
        } catch (IOException e) {
            releaseWriting();
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
        loop.execute(() -> {
            try {
                readFromLoop();
            } catch (IOException e) {
                close(unavailable("read failed: " + e.getMessage()));
            }
        });
    }

    /**
     * Loop thread: watches reads again after callers held the role, and parses what they left;
     * if a caller holds the role again, leaves it to that caller's return.
     */
    private void watchReadsAgain() {
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
        try {
            readFromLoop();
        } catch (IOException e) {
            close(unavailable("read failed: " + e.getMessage()));
        }
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
        try {
            java.nio.channels.Selector selector = callerSelector();
            boolean readable = receiver.hasUnparsed(); // bytes a reader left; else the selector says when to read
            while (!closed.get() && waiting.getAsBoolean()) {
                if (readable) {
                    receiver.read();
                    if (closed.get() || !waiting.getAsBoolean()) {
                        break;
                    }
                }
                if (Transport.passed(deadlineNanos) || Thread.currentThread().isInterrupted()) {
                    if (!readable) {
                        receiver.read(); // an immediate deadline still looks once
                    }
                    break;
                }
                readable = true;
                long millis = CALLER_SELECT_MILLIS;
                if (deadlineNanos != Long.MAX_VALUE) {
                    millis = Math.max(1, Math.min(millis, (deadlineNanos - System.nanoTime() + 999_999) / 1_000_000));
                }
                selector.select(millis);
                selector.selectedKeys().clear();
            }
        } catch (IOException e) {
            close(unavailable("read failed: " + e.getMessage()));
        } catch (java.nio.channels.ClosedSelectorException e) {
            // closed meanwhile; close() has told the listener
        } catch (Error e) {
            // as on the loop thread: an Error while handling frames is not survived half-way; the
            // connection fails (its waiters get UNAVAILABLE naming it) instead of the caller's thread
            close(unavailable("receiving on a waiting caller's thread stopped by " + e));
        } finally {
            // if the loop stopped watching reads while this caller held the role, it watches again
            // at once when a frame may come that nobody waits for on a socket (a reply or report
            // owed to a parked caller or a callback, the rest of a frame); else about a
            // millisecond later, so callers waiting back to back do not wake it per round trip
            boolean urgent = receiver.midFrame() || expectsFrames();
            switch (readRole.releaseByCaller(receiver.hasUnparsed(), urgent)) {
                case ReadRole.REARM_NOW -> loop.execute(this::watchReadsAgain); // bytes already received: parse them
                case ReadRole.REARM_LATER -> loop.executeLater(this::watchReadsAgain, rearmDelayNanos);
                default -> { } // the loop still watches, or a rearm is on its way
            }
        }
        return true;
    }

    /** {@link Transport.Listener#expectsFrames}; true if it fails (a prompt rearm is always safe). */
    private boolean expectsFrames() {
        try {
            return listener.expectsFrames();
        } catch (RuntimeException e) {
            return true;
        }
    }

    /** The receiving caller's selector, opened and registered at first use (read role held). */
    private java.nio.channels.Selector callerSelector() throws IOException {
        java.nio.channels.Selector selector = callerSelector;
        if (selector == null) {
            selector = ownSelector(SelectionKey.OP_READ, opened -> callerSelector = opened);
        }
        return selector;
    }

    /**
     * A selector of its own on this channel for {@code ops}, for a caller to block in, handed to
     * {@code publish} (the field close() closes it through); fails if the connection closed meanwhile.
     */
    private java.nio.channels.Selector ownSelector(int ops,
            java.util.function.Consumer<java.nio.channels.Selector> publish) throws IOException {
        java.nio.channels.Selector selector = java.nio.channels.Selector.open();
        channel.register(selector, ops);
        publish.accept(selector);
        if (closed.get()) { // close() may have missed it
            selector.close();
            throw new java.nio.channels.ClosedSelectorException();
        }
        return selector;
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
        java.nio.channels.Selector selector = callerSelector;
        if (selector != null && readRole.held()) {
            selector.wakeup();
        }
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
        java.nio.channels.Selector selector = callerSelector;
        if (selector != null) {
            try {
                selector.close(); // wakes a receiving caller; its select then fails, and it returns
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        java.nio.channels.Selector writer = writeSelector;
        if (writer != null) {
            try {
                writer.close(); // wakes a caller writing a large frame; it returns
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        receiver.abortSink(); // no byte lands in lent memory from now on (the reader may still be in a read)
        returnLent(); // payloads queued and not written: given back (by the writer as it lets go, if one writes now)
        Listener l = listener;
        if (l != null) {
            l.onClosed(reason);
        }
    }

    @Override
    public void closeAfterFlush(StatusException reason) {
        closeAfterFlush = reason;
        if (writing.compareAndSet(false, true)) {
            try {
                finishWriting();
            } catch (IOException e) {
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
        return queuedBytes.get();
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

    /** Whether the connection closed (any thread). */
    boolean closed() {
        return closed.get();
    }

    StatusException unavailable(String why) {
        return new StatusException(StatusCode.UNAVAILABLE, "connection to " + peer + ": " + why);
    }
}
