package dev.ortho.hal.remote.internal.transport;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The frames a {@link TcpConnection} has to send, and the write role: whoever holds it (a
 * sending thread, a caller writing a large frame, or the I/O loop) is the only one writing to
 * the socket and removing frames from the queue. {@link #drain} writes queued frames in
 * gathering writes (through TLS one frame at a time); lent payloads ({@link Transport#sendLent})
 * are given back once written or, after close, once no writer can touch them.
 *
 * <p><b>Threads.</b> {@link #enqueue} from any thread (lock-free queue; a frame and its lent
 * payload are added under the queue's monitor so they stay together); {@link #drain} only by
 * the holder of the write role ({@link #tryAcquire}/{@link #acquire} … {@link #release}), which
 * also guards the batch arrays. The connection decides when to write and who continues when
 * the socket is full; this class only keeps the queue, the role and the lent payloads.
 */
final class OutboundQueue {
    private static final int BATCH = 64;

    private final ConnectionLink connection;
    /** The socket, or the streams of a {@link BlockingTcpConnection}'s socket. */
    private final GatheringByteChannel channel;
    /** TLS between the frames and the socket, or null for plain TCP (the connection's). */
    private final TlsLayer tls;
    private final boolean[] tlsFlag = new boolean[1]; // holder of the write role
    private final String peer;
    private final Queue<ByteBuffer> outbound = new ConcurrentLinkedQueue<>();
    /** Bytes queued and not yet written; a peer that stops reading cannot make this grow without bound. */
    private final AtomicLong queuedBytes = new AtomicLong();
    private final long maxQueuedBytes;
    /** The write role: held by whoever is writing, a sender thread or the loop. */
    private final AtomicBoolean writing = new AtomicBoolean();
    private final ByteBuffer[] batch = new ByteBuffer[BATCH];
    /** A frame's head and payload piece for {@link #writePiece} (holder of the write role). */
    private final ByteBuffer[] pair = new ByteBuffer[2];
    /** A loop task will write what {@link #enqueueDeferred} queued. */
    private final AtomicBoolean flushScheduled = new AtomicBoolean();
    /** The frames {@link #batch} holds or slices. */
    private final ByteBuffer[] sources = new ByteBuffer[BATCH];
    /** Payloads queued by {@link #enqueue} and what gives each back (by identity; guarded by {@link #outbound}'s monitor). */
    private final java.util.Map<ByteBuffer, Runnable> lent = new java.util.IdentityHashMap<>();
    /** {@link #lent}'s size (written under the monitor; read without it as a hint). */
    private volatile int lentCount;

    OutboundQueue(ConnectionLink connection, GatheringByteChannel channel, TlsLayer tls, String peer, long maxQueuedBytes) {
        this.connection = connection;
        this.channel = channel;
        this.tls = tls;
        this.peer = peer;
        this.maxQueuedBytes = maxQueuedBytes;
    }

    /** Nothing is queued (a hint unless the caller holds the write role). */
    boolean isEmpty() {
        return outbound.isEmpty();
    }

    /** Bytes queued and not yet written. */
    long queuedBytes() {
        return queuedBytes.get();
    }

    /** The queue's state for {@link TcpConnection#diagnostics}. */
    String diagnostics() {
        return "queuedBytes=" + queuedBytes.get() + " limit=" + maxQueuedBytes + " frames=" + outbound.size()
                + " lent=" + lentCount + " writeRoleHeld=" + writing.get();
    }

    /** Takes the write role if nobody holds it. */
    boolean tryAcquire() {
        return writing.compareAndSet(false, true);
    }

    /** Takes the write role, waiting while another thread holds it; false if the connection closed. */
    boolean acquire() {
        for (int round = 0; !writing.compareAndSet(false, true); round++) {
            if (connection.closed()) {
                return false;
            }
            if (round < 64) {
                Thread.onSpinWait();
            } else {
                java.util.concurrent.locks.LockSupport.parkNanos(this, 20_000);
            }
        }
        if (connection.closed()) {
            release();
            return false;
        }
        return true;
    }

    /** Adds {@code frame} to the outbound queue; false if closed or over the queue limit (then closed). */
    boolean enqueue(ByteBuffer frame) {
        return enqueue(frame, null, null);
    }

    /**
     * Adds {@code frame} and, unless null, the lent {@code payload} right behind it (nothing of
     * another thread's comes between) to the outbound queue; false if closed or over the queue
     * limit (then closed). Enqueuers hold the queue's monitor, so a frame and its payload stay together.
     */
    boolean enqueue(ByteBuffer frame, ByteBuffer payload, Runnable returned) {
        if (connection.closed()) {
            return false;
        }
        long bytes = frame.remaining() + (payload == null ? 0 : payload.remaining());
        if (queuedBytes.addAndGet(bytes) > maxQueuedBytes) {
            connection.close(new StatusException(StatusCode.RESOURCE_EXHAUSTED, "more than " + maxQueuedBytes
                    + " bytes are waiting to be sent to " + peer + ", which is not reading them"));
            return false;
        }
        synchronized (outbound) {
            if (connection.closed()) { // again under the monitor: a writer that dropped the queue at close took it
                queuedBytes.addAndGet(-bytes);
                return false;
            }
            outbound.add(frame);
            if (payload != null) {
                lent.put(payload, returned);
                lentCount++;
                outbound.add(payload);
            }
        }
        return true;
    }

    /** {@link Transport#sendAll}'s queueing: adds every frame in order; whether any was queued (then write). */
    boolean enqueueAll(java.util.List<ByteBuffer> frames) {
        boolean queued = false;
        for (ByteBuffer frame : frames) {
            queued |= enqueue(frame);
        }
        return queued;
    }

    /**
     * {@link Transport#sendDeferred}'s queueing: adds {@code frame}; runs {@code writeNow} once
     * {@value TcpConnection#DEFERRED_FLUSH_BYTES} bytes are queued, else has {@code loop} run
     * {@code writeFromLoop} in about {@value TcpConnection#DEFERRED_FLUSH_NANOS} ns (one such
     * flush scheduled at a time), should no send or flush come first: a deferred frame is never stranded.
     */
    void enqueueDeferred(ByteBuffer frame, IoLoop loop, Runnable writeNow, Runnable writeFromLoop) {
        if (!enqueue(frame)) {
            return;
        }
        if (queuedBytes() >= TcpConnection.DEFERRED_FLUSH_BYTES) {
            writeNow.run();
        } else if (flushScheduled.compareAndSet(false, true)) {
            loop.executeLater(() -> {
                flushScheduled.set(false);
                writeFromLoop.run();
            }, TcpConnection.DEFERRED_FLUSH_NANOS);
        }
    }

    /**
     * {@link Transport#sendLent}'s queueing: adds the frame and its lent payload; false if it was
     * not queued ({@code returned} has run: closed); true if it was (then write), giving back
     * what close may have missed.
     */
    boolean enqueueLent(ByteBuffer head, ByteBuffer payload, Runnable returned) {
        if (!enqueue(head, payload, returned)) {
            returned.run(); // closed: it was never queued
            return false;
        }
        if (connection.closed()) {
            returnLent(); // close() may have returned what was lent before this was
        }
        return true;
    }

    /**
     * One gathering write of {@code head}'s rest and the next piece of {@code payload} (a heap
     * payload in {@value TcpConnection#IO_SLICE_BYTES}-byte slices, which the JDK copies whole),
     * for a holder of the write role writing a large frame itself; whether the socket took all
     * that was presented (false: it is full, or a blocking write stopped short).
     */
    boolean writePiece(ByteBuffer head, ByteBuffer payload) throws IOException {
        ByteBuffer piece = payload.isDirect() || payload.remaining() <= TcpConnection.IO_SLICE_BYTES ? payload
                : payload.slice(payload.position(), TcpConnection.IO_SLICE_BYTES);
        pair[0] = head;
        pair[1] = piece;
        long presented = head.remaining() + piece.remaining();
        long written;
        try {
            written = channel.write(pair, 0, 2);
        } finally {
            pair[0] = null;
            pair[1] = null;
        }
        if (piece != payload) {
            payload.position(payload.position() + piece.position());
        }
        return written >= presented;
    }

    /** Lets go of the write role; if the connection closed meanwhile, returns what was lent. */
    void release() {
        writing.set(false);
        if (lentCount != 0 && connection.closed()) {
            returnLent();
        }
    }

    /** The connection closed (holder of the write role): drops every queued frame, giving back what is still lent. */
    private void dropClosed() {
        java.util.List<Runnable> returns;
        synchronized (outbound) {
            outbound.clear();
            queuedBytes.set(0);
            returns = takeLent();
        }
        returns.forEach(OutboundQueue::runReturn);
    }

    /** Everything lent, forgotten (under {@link #outbound}'s monitor). */
    private java.util.List<Runnable> takeLent() {
        java.util.List<Runnable> returns = new java.util.ArrayList<>(lent.values());
        lent.clear();
        lentCount = 0;
        return returns;
    }

    /** A written buffer left the queue (holder of the write role): if it was lent, gives it back. */
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
     * takes the write role; if another thread holds it, that thread does this as it lets go).
     */
    void returnLent() {
        if (!writing.compareAndSet(false, true)) {
            return;
        }
        java.util.List<Runnable> returns;
        try {
            synchronized (outbound) {
                returns = takeLent();
            }
            returns.forEach(OutboundQueue::runReturn);
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

    /**
     * Writes queued frames, up to {@link #BATCH} per gathering write (one system call for a burst
     * of small frames); true if the queue emptied, false if the socket is full. Caller holds
     * the write role, which also guards {@link #batch}. Once the connection closed, writes
     * nothing and drops what is queued: close gave back the lent payloads still queued (their
     * memory may be freed by now), and a writer that took the role after it must not touch them.
     */
    boolean drain() throws IOException {
        try {
            return drainOpen();
        } catch (RuntimeException e) {
            // not an I/O error (memory freed under a frame, a TLS engine's failure), but the
            // stream may hold part of a frame now: the caller closes the connection as for one
            throw new IOException("unexpected " + e, e);
        } catch (Error e) {
            // the caller does not survive this: close here, holding the role, so no waiter hangs
            // and nothing stays lent (enqueue refuses everything once closed)
            try {
                connection.close(connection.unavailable("write failed: " + e));
            } finally {
                dropClosed();
            }
            throw e;
        }
    }

    private boolean drainOpen() throws IOException {
        if (connection.closed()) {
            dropClosed();
            return true;
        }
        if (tls != null) {
            return drainTls();
        }
        while (true) {
            int n = 0;
            for (ByteBuffer frame : outbound) {
                // a heap frame is copied whole into a temporary direct buffer by each write; a
                // slice bounds that copy to what one write can take (no quadratic copying)
                sources[n] = frame;
                boolean whole = frame.isDirect() || frame.remaining() <= TcpConnection.IO_SLICE_BYTES;
                batch[n++] = whole ? frame : frame.slice(frame.position(), TcpConnection.IO_SLICE_BYTES);
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
                ByteBuffer gone = outbound.poll(); // only the holder of the write role removes, so the head is sources[done]
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
                ByteBuffer gone = outbound.poll(); // only the holder of the write role removes
                if (lentCount != 0) {
                    giveBack(gone);
                }
            }
        }
        return true;
    }
}
