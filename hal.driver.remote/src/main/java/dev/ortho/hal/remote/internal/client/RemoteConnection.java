package dev.ortho.hal.remote.internal.client;

import dev.ortho.hal.trace.HalTracing;
import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.remote.internal.protocol.FrameReader;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.remote.internal.transport.BodySink;
import dev.ortho.hal.remote.internal.transport.Transport;
import dev.ortho.hal.trace.RemoteFrameEvent;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client end of one connection: numbers requests and handles, matches replies to waiting
 * callers, routes server notifications (semaphore signals and failures, queue-allocated buffer
 * properties) and watches the peer's liveness.
 *
 * <p><b>Failure.</b> When the transport closes, the peer stops answering pings for
 * {@code deadlineNanos}, or the server sends something it should not, the connection fails:
 * every waiting call and every later call throws UNAVAILABLE, and every semaphore the server was
 * still expected to signal fails with UNAVAILABLE, so no waiter hangs.
 *
 * <p><b>Device loss.</b> A one-way request that the server refused ({@link Protocol#ERROR})
 * cannot be reported to its caller, who has moved on, and later work may depend on it (an
 * upload that did not happen leaves a buffer with other contents). So it loses the device, as
 * IREE's sticky device loss does: the connection closes and from then on every waiting and later
 * call, and every semaphore the server still owed, fails with the refused request's status code
 * and a message naming the request. A reply that arrives after the refusal is not delivered.
 *
 * <p>Thread-safe.
 */
final class RemoteConnection implements Transport.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(RemoteConnection.class);
    private static final int CALL_DEADLINES = 12;

    /** Receives notifications about one handle. */
    interface Target {
        void reached(long value, Frontier frontier);

        void failed(StatusException status);

        /** The connection failed: fail if the server still owed a signal. */
        void connectionLost(StatusException status);
    }

    /** A caller waiting for a reply. */
    private static final class Pending {
        final Thread waiter = Thread.currentThread();
        volatile FrameReader reply;
        volatile StatusException failure;
        /** Where a buffer read's data may be received directly (a {@link BodySink}), or null. */
        final ByteBuffer target;
        /** The data landed in {@link #target} (the reply carries none). */
        volatile boolean landed;
        /** The caller stopped waiting (guarded by this, with {@link #sink}). */
        private boolean abandoned;
        private BodySink sink;

        Pending(ByteBuffer target) {
            this.target = target;
        }
    }

    private final String peer;
    private final long deadlineNanos;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong handles = new AtomicLong();
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final Map<Long, Target> targets = new ConcurrentHashMap<>();
    /**
     * Targets the server still owes a report: semaphores a submitted operation will signal that
     * have not reached that value yet, and imports of other devices' semaphores in use.
     */
    private final java.util.Set<Target> owing = ConcurrentHashMap.newKeySet();
    private volatile Transport transport;
    private volatile StatusException failure;
    /** Set once a one-way request failed: the device is lost (see the class comment). */
    private volatile StatusException lost;
    /** Why the owner closed the connection ({@link #close}), else null: pending work fails CANCELLED, not UNAVAILABLE. */
    private volatile StatusException closedByOwner;
    private final java.util.concurrent.atomic.AtomicBoolean closedOnce = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile long lastPingNanos = System.nanoTime();
    private volatile boolean authenticated;
    private volatile Runnable afterClose = () -> { };
    /** Queue operations sent within this long of the previous frame form a burst (deferred, one write). */
    static final long BURST_NANOS = 20_000;
    /** Larger frames are written at once: their write costs more than a system call saved. */
    static final int DEFERRED_MAX_BYTES = 16 << 10;
    private volatile long lastSendNanos = System.nanoTime() - 2 * BURST_NANOS;

    /**
     * @param deadlineNanos how long the peer may stay silent (it is pinged at a quarter of it)
     *     before the connection fails; replies to calls are awaited at most
     *     {@value #CALL_DEADLINES} times as long
     */
    RemoteConnection(String peer, long deadlineNanos) {
        this.peer = peer;
        this.deadlineNanos = deadlineNanos;
    }

    /** Runs once after the connection has failed or closed (stops its I/O thread). */
    void afterClose(Runnable hook) {
        this.afterClose = hook;
    }

    void attach(Transport transport) {
        this.transport = transport;
    }

    String peer() {
        return peer;
    }

    long newHandle() {
        return handles.incrementAndGet();
    }

    long newRequestId() {
        return requests.incrementAndGet();
    }

    /** A frame for a new request. */
    FrameWriter request(int opcode) {
        return FrameWriter.frame(opcode, newRequestId());
    }

    FrameWriter request(int opcode, int payloadHint) {
        return FrameWriter.frame(opcode, newRequestId(), payloadHint);
    }

    /** Throws UNAVAILABLE if the connection has failed. */
    void checkOpen() {
        StatusException failed = failure;
        if (failed != null) {
            throw new StatusException(failed.code(), failed.getMessage(), failed);
        }
    }

    boolean isOpen() {
        return failure == null;
    }

    /** Whether the device's owner closed this connection ({@link #closeByOwner}). */
    boolean isClosedByOwner() {
        return closedByOwner != null;
    }

    /** Queued bytes above which callers of {@link #send} wait for the transport to drain. */
    static final long BACKPRESSURE_BYTES = 2L * Protocol.TRANSFER_CHUNK_BYTES;

    /**
     * Sends a one-way request; UNAVAILABLE if the connection has failed. Backpressure: while more
     * than {@link #BACKPRESSURE_BYTES} wait to be sent, the caller parks (the connection fails a
     * peer that stops reading, so this wait is bounded by the liveness deadline).
     */
    void send(FrameWriter frame) {
        write(frame, false);
    }

    /**
     * As {@link #send}, for a queue operation, which may be batched: one that follows another
     * frame within {@link #BURST_NANOS} (with no {@link #flush} since) is queued, not written.
     * The burst goes out in one write when a caller waits for the server ({@link #flush}: a
     * semaphore wait, query or timepoint), sends anything else, or queues
     * {@code TcpConnection.DEFERRED_FLUSH_BYTES}; failing those, from the transport's thread
     * within a millisecond or two. A frame after a quiet spell is written at once, so a lone
     * request pays no delay.
     */
    void sendBatched(FrameWriter frame) {
        write(frame, true);
    }

    private void write(FrameWriter frame, boolean batch) {
        checkOpen();
        Transport t = transport;
        for (int round = 0; t.queuedBytes() > BACKPRESSURE_BYTES; round++) {
            checkOpen();
            if (round < 64) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(this, 50_000);
            }
        }
        ByteBuffer bytes = traced(frame.finish());
        long now = System.nanoTime();
        long last = lastSendNanos;
        lastSendNanos = now;
        if (batch && now - last < BURST_NANOS && bytes.remaining() <= DEFERRED_MAX_BYTES) {
            t.sendDeferred(bytes);
        } else {
            t.send(bytes);
        }
    }

    /**
     * Sends a one-way request whose last field is {@code payload}'s bytes ({@code head} ends with
     * their {@code u32} length), without copying them into a frame: the transport writes them
     * from {@code payload} ({@link Transport#sendWithPayload}) and this returns once they are no
     * longer needed. UNAVAILABLE if the connection has failed; the burst before it is written first.
     */
    void sendWithPayload(FrameWriter head, ByteBuffer payload) {
        checkOpen();
        int bytes = payload.remaining();
        ByteBuffer frame = head.finishWithPayload(bytes);
        if (HalTracing.AVAILABLE && RemoteFrameEvent.enabled()) {
            RemoteFrameEvent.oneWay(peer, frame.getInt(Protocol.LENGTH_BYTES), frame.remaining() + bytes);
        }
        lastSendNanos = System.nanoTime();
        transport.sendWithPayload(frame, payload);
    }

    /** Sends if still open; for notifications and releases that may race a failure. */
    void sendQuietly(FrameWriter frame) {
        if (failure == null) {
            transport.send(traced(frame.finish()));
        }
    }

    /** Records a one-way request frame for JFR (nothing unless a recording enables it). */
    private ByteBuffer traced(ByteBuffer frame) {
        if (HalTracing.AVAILABLE && RemoteFrameEvent.enabled()) {
            RemoteFrameEvent.oneWay(peer, frame.getInt(Protocol.LENGTH_BYTES), frame.remaining());
        }
        return frame;
    }

    /**
     * The caller receives for the connection while {@code waiting} holds, until
     * {@code deadlineNanos} ({@link Transport#receiveWhile}); false if it could not (another
     * thread receives, or the transport does not lend receiving), and the caller waits as before.
     */
    boolean receiveWhile(java.util.function.BooleanSupplier waiting, long deadlineNanos) {
        Transport t = transport;
        return t != null && failure == null && t.receiveWhile(waiting, deadlineNanos);
    }

    /** Wakes a caller receiving in {@link #receiveWhile}: its wait may have ended without a frame. */
    void wakeReceiver() {
        Transport t = transport;
        if (t != null) {
            t.wakeReceiver();
        }
    }

    /**
     * A caller is about to wait for something the server reports (a semaphore value, a
     * buffer's properties): writes the frames a burst queued now, and ends the burst.
     */
    void flush() {
        lastSendNanos = System.nanoTime() - 2 * BURST_NANOS;
        Transport t = transport;
        if (t != null) {
            t.flush();
        }
    }

    /**
     * Sends a request and waits for its reply; returns the reader positioned after the OK status.
     * Waits until the reply arrives or the connection fails (a silent peer fails it within the
     * liveness deadline).
     *
     * @throws StatusException the server's status, annotated with {@code what}; UNAVAILABLE if
     *     the connection fails first
     */
    FrameReader call(FrameWriter frame, String what) {
        return await(start(frame), what);
    }

    /** A round trip in flight: {@link #start} sent it, {@link #await} collects its reply. */
    static final class Call {
        final long id;
        final Pending pending;
        final long giveUp;
        final RemoteFrameEvent event;

        private Call(long id, Pending pending, long giveUp, RemoteFrameEvent event) {
            this.id = id;
            this.pending = pending;
            this.giveUp = giveUp;
            this.event = event;
        }

        /** Whether a {@link #startRead} reply's data landed in its target (the reply carries none). */
        boolean landed() {
            return pending.landed;
        }
    }

    /**
     * Sends a request whose reply {@link #await} collects, so several round trips can be in
     * flight at once (a chunked read); the starting thread awaits every started call or
     * {@link #abandon}s it.
     */
    Call start(FrameWriter frame) {
        return start(frame, null);
    }

    /**
     * As {@link #start(FrameWriter)} for a {@link Protocol#BUFFER_READ}: the reply's data may
     * land straight in {@code target} (exactly the data's length; a heap {@code byte[]} or native
     * segment), without a body buffer or a copy; then {@link Call#landed} answers true and the
     * reply {@link #await} returns carries no data. Until the call is awaited or abandoned the
     * transport may write {@code target}; afterwards never.
     */
    Call startRead(FrameWriter frame, java.lang.foreign.MemorySegment target) {
        return start(frame, BodySink.sharedView(target, true));
    }

    /**
     * {@code segment} as a byte buffer the calling thread can write to a socket, or null (a heap
     * array other than {@code byte[]}, or read-only heap memory).
     */
    static ByteBuffer sourceOrNull(java.lang.foreign.MemorySegment segment) {
        if (!segment.isNative() && !(segment.heapBase().orElse(null) instanceof byte[])) {
            return null;
        }
        return segment.asByteBuffer();
    }

    private Call start(FrameWriter frame, ByteBuffer target) {
        ByteBuffer bytes = frame.finish();
        long id = bytes.getLong(Protocol.LENGTH_BYTES + 4);
        Pending call = new Pending(target);
        pending.put(id, call);
        RemoteFrameEvent event = HalTracing.AVAILABLE && RemoteFrameEvent.enabled() // null unless recording
                ? RemoteFrameEvent.start(peer, bytes.getInt(Protocol.LENGTH_BYTES), bytes.remaining()) : null;
        Call started = new Call(id, call, System.nanoTime() + CALL_DEADLINES * deadlineNanos, event);
        try {
            checkOpen();
            lastSendNanos = System.nanoTime();
            transport.send(bytes);
        } catch (RuntimeException e) {
            finish(started);
            throw e;
        }
        return started;
    }

    /** Forgets a started call whose reply nobody will await (a reply arriving later is dropped). */
    void abandon(Call started) {
        finish(started);
    }

    private void finish(Call started) {
        Pending call = started.pending;
        if (call.target != null) {
            BodySink lent;
            synchronized (call) {
                call.abandoned = true;
                lent = call.sink;
            }
            if (lent != null) {
                lent.abort(); // after this the transport writes no byte into the caller's target
            }
        }
        pending.remove(started.id);
        if (started.event != null) {
            RemoteFrameEvent.finish(started.event, started.pending.reply == null);
        }
    }

    /**
     * Waits for the reply of a started call; returns the reader positioned after the OK status.
     * Waits until the reply arrives or the connection fails (a silent peer fails it within the
     * liveness deadline).
     *
     * @throws StatusException the server's status, annotated with {@code what}; UNAVAILABLE if
     *     the connection fails first
     */
    FrameReader await(Call started, String what) {
        Pending call = started.pending;
        try {
            if (pending.size() > 1 && call.target == null) {
                // several replies in flight (a chunked read): the transport's thread receives the
                // next while this one copies out this one
                transport.receiveOnOwnThread();
            } else if (call.reply == null && call.failure == null && failure == null) {
                // receive the reply on this thread (no hand-off from the transport's), then wait as usual
                transport.receiveWhile(() -> call.reply == null && call.failure == null && failure == null,
                        started.giveUp);
            }
            while (call.reply == null && call.failure == null) {
                long remaining = started.giveUp - System.nanoTime();
                if (remaining <= 0) {
                    throw new StatusException(StatusCode.DEADLINE_EXCEEDED, what + " on " + peer + " got no reply within "
                            + CALL_DEADLINES * deadlineNanos / 1_000_000 + " ms");
                }
                LockSupport.parkNanos(this, Math.min(remaining, deadlineNanos));
                if (Thread.interrupted()) {
                    Thread.currentThread().interrupt();
                    throw new StatusException(StatusCode.ABORTED, what + " on " + peer + " was interrupted");
                }
                if (call.reply == null && call.failure == null && failure != null) {
                    call.failure = failure;
                }
            }
        } finally {
            finish(started);
        }
        FrameReader reply = call.reply;
        StatusException lostStatus = lost;
        if (lostStatus != null) { // the server answered after refusing an earlier one-way request
            throw new StatusException(lostStatus.code(), what + " on " + peer + ": " + lostStatus.getMessage(),
                    lostStatus);
        }
        if (reply == null) { // a reply that arrived just before the connection closed still counts
            throw new StatusException(call.failure.code(), what + " on " + peer + ": " + call.failure.getMessage(),
                    call.failure);
        }
        int code = reply.i32("status code");
        if (code != 0) {
            StatusCode status;
            try {
                status = StatusCode.fromValue(code);
            } catch (StatusException e) {
                status = StatusCode.UNKNOWN;
            }
            throw new StatusException(status, reply.string("status message"));
        }
        return reply;
    }

    /**
     * A reply to a {@link #startRead} whose data fits its target: received straight into it.
     * Anything else (another frame, a failure, a length that does not match) is received whole
     * and handled by {@link #onFrame} as usual.
     */
    @Override
    public BodySink bodySink(ByteBuffer prefix, int bodyLength) {
        if (prefix.getInt(0) != Protocol.REPLY || prefix.getInt(Protocol.HEADER_BYTES) != 0) {
            return null;
        }
        long id = prefix.getLong(4);
        Pending call = pending.get(id);
        int dataOffset = Protocol.HEADER_BYTES + 8; // status code, data length
        if (call == null || call.target == null || prefix.getInt(Protocol.HEADER_BYTES + 4) != call.target.remaining()
                || bodyLength - dataOffset != call.target.remaining()) {
            return null;
        }
        synchronized (call) {
            if (call.abandoned || call.reply != null) {
                return null;
            }
            call.sink = new BodySink(dataOffset, call.target) {
                @Override
                protected void complete() {
                    call.landed = true;
                    call.reply = new FrameReader(ByteBuffer.allocate(Protocol.HEADER_BYTES + 4)
                            .order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(Protocol.REPLY).putLong(id).putInt(0).flip());
                    LockSupport.unpark(call.waiter);
                }

                @Override
                protected void release() {
                    // the caller's memory: nothing to give back
                }
            };
            return call.sink;
        }
    }

    /**
     * Whether a frame may come that nobody is receiving for: a reply a caller waits for, or the
     * report of a semaphore an operation will still signal (a waiter, a timepoint callback).
     */
    @Override
    public boolean expectsFrames() {
        if (!owing.isEmpty()) {
            return true;
        }
        for (Pending call : pending.values()) {
            if (call.reply == null && call.failure == null) {
                return true;
            }
        }
        return false;
    }

    /** {@code semaphore} is owed a report by the server ({@code owes}), or no longer. */
    void owing(Target semaphore, boolean owes) {
        if (owes) {
            owing.add(semaphore);
        } else {
            owing.remove(semaphore);
        }
    }

    void register(long handle, Target target) {
        targets.put(handle, target);
    }

    void unregister(long handle) {
        targets.remove(handle);
    }

    @Override
    public void onFrame(ByteBuffer body) {
        FrameReader in = new FrameReader(body);
        switch (in.opcode()) {
            case Protocol.REPLY -> {
                Pending call = pending.get(in.requestId());
                if (call != null) {
                    call.reply = in;
                    LockSupport.unpark(call.waiter);
                }
            }
            case Protocol.PONG -> in.end();
            case Protocol.ERROR -> {
                StatusException status = in.status("error");
                in.end();
                lose(in.requestId(), status);
            }
            case Protocol.SEMAPHORE_REACHED -> {
                long handle = in.i64("handle");
                long value = in.i64("value");
                Frontier frontier = in.frontier("frontier");
                in.end();
                Target target = targets.get(handle);
                if (target != null) {
                    target.reached(value, frontier);
                }
            }
            case Protocol.SEMAPHORE_FAILED, Protocol.BUFFER_FAILED -> {
                long handle = in.i64("handle");
                StatusException status = in.status("failure");
                in.end();
                Target target = targets.get(handle);
                if (target != null) {
                    target.failed(status);
                }
            }
            case Protocol.BUFFER_INFO -> {
                long handle = in.i64("handle");
                int type = in.i32("memory type");
                int access = in.i32("access");
                int usage = in.i32("usage");
                in.end();
                if (targets.get(handle) instanceof RemoteBuffer buffer) {
                    buffer.resolve(type, access, usage);
                }
            }
            default -> throw new StatusException(StatusCode.INVALID_ARGUMENT, "remote device " + peer
                    + " sent unexpected opcode " + in.opcode());
        }
    }

    /**
     * The handshake is done: from now on a quiet peer is pinged. Before it, a server accepts
     * only HELLO and then AUTH, so a ping (a slow handshake, e.g. a cold JVM on a loaded
     * machine) would make it close the connection.
     */
    void authenticated() {
        authenticated = true;
    }

    /**
     * Asks the server for a frame at once (a ping; its pong follows): ends a caller's blocked
     * read when its wait ended without a frame ({@link Transport#wakeReceiver}). Nothing before
     * the handshake is done (the server accepts only HELLO and AUTH then) or once failed.
     */
    void askForFrame() {
        Transport t = transport;
        if (t != null && authenticated && failure == null) {
            t.send(request(Protocol.PING).finish());
        }
    }

    /** Liveness: pings a quiet peer and fails the connection when it stays silent past the deadline. */
    void tick(long now) {
        Transport t = transport;
        if (t == null || failure != null) {
            return;
        }
        if (now - t.lastReceiveNanos() > deadlineNanos) {
            t.close(new StatusException(StatusCode.UNAVAILABLE, "remote device " + peer + " did not answer for "
                    + deadlineNanos / 1_000_000 + " ms"));
            return;
        }
        if (authenticated && now - lastPingNanos > deadlineNanos / 4) {
            lastPingNanos = now;
            t.send(request(Protocol.PING).finish());
        }
    }

    /**
     * Closes the connection because its owner closed the device: pending work (waiting calls,
     * semaphores the server owes a value) fails with CANCELLED naming {@code status}, as a local
     * device's does when closed, rather than with the UNAVAILABLE of a lost connection.
     */
    void closeByOwner(StatusException status) {
        closedByOwner = status;
        close(status);
    }

    /** Closes the connection; pending work fails with UNAVAILABLE naming {@code status}. */
    void close(StatusException status) {
        Transport t = transport;
        if (t != null) {
            t.closeAfterFlush(status);
        } else {
            onClosed(status);
        }
    }

    /**
     * The server refused one-way request {@code requestId}: the device is lost (sticky) with the
     * refusal's code, and the connection closes.
     */
    private void lose(long requestId, StatusException refusal) {
        StatusException status = new StatusException(refusal.code(), "remote device " + peer
                + " is lost: one-way request " + requestId + " failed: " + refusal.getMessage());
        LOG.error("{}", status.getMessage());
        lost = status;
        failAll(status);
        Transport t = transport;
        if (t != null) {
            t.close(status);
        }
    }

    @Override
    public void onClosed(StatusException reason) {
        StatusException owner = closedByOwner;
        failAll(owner != null
                ? new StatusException(StatusCode.CANCELLED, "remote device " + peer + " closed: " + owner.getMessage())
                : new StatusException(StatusCode.UNAVAILABLE, "remote device " + peer + " is unavailable: "
                        + reason.getMessage()));
        if (closedOnce.compareAndSet(false, true)) {
            afterClose.run();
        }
    }

    /** Fails waiting calls, later calls and owed semaphores with {@code status}; the first failure wins. */
    private synchronized void failAll(StatusException status) {
        if (failure != null) {
            return;
        }
        failure = status;
        for (Pending call : pending.values()) {
            if (call.reply == null) {
                call.failure = status;
            }
            LockSupport.unpark(call.waiter);
        }
        for (Target target : targets.values()) {
            try {
                target.connectionLost(status);
            } catch (RuntimeException e) {
                LOG.warn("failing a semaphore of {} failed", peer, e);
            }
        }
    }
}
