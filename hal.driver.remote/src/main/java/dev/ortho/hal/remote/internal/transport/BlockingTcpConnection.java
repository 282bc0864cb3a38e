package dev.ortho.hal.remote.internal.transport;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * A client's plain-TCP {@link Transport} whose receiving threads block in the socket's
 * {@code read}: the round trip a waiting caller makes is caller → peer → caller with one system
 * call that sleeps and returns the bytes on each receive, as a blocking socket's, not an
 * {@code epoll_wait} through a {@code Selector} followed by a {@code read} ({@link TcpConnection},
 * kept for servers, TLS and {@code tcp_reader=selector}).
 *
 * <p><b>The socket</b> ({@link BlockingSocket}) is in blocking mode and no interrupt ends or closes
 * its reads or writes (a blocking {@code SocketChannel} would close, losing every buffer and
 * operation of the device): where this JVM can call the C library ({@link NativeSocket}: Linux,
 * native access enabled) a socket this transport opens itself, read with {@code recv} and written
 * with {@code sendmsg} straight from and into direct buffers; elsewhere a plain {@link Socket}
 * read and written through its streams ({@link SocketStreams}: the JDK's {@code NioSocketImpl},
 * which copies direct buffers through {@code byte[]}s, and whose descriptor stays blocking only
 * while no timed operation and no virtual thread touches it: {@link BlockingSockets#connect}
 * bounds the connect by closing the socket at the timeout). Virtual threads never read or write either kind (see below).
 *
 * <p><b>Who reads.</b> The <em>read role</em> ({@link ReceiveRole})
 * is held by at most one thread, which alone runs the {@link FrameReceiver}:
 * <ul>
 *   <li>a platform thread waiting for the peer ({@link #receiveWhile}) takes it if nobody holds
 *       it, and blocks in the socket's read itself until its wait ends; frames for others are
 *       delivered on its thread too, one at a time;
 *   <li>the connection's reader thread ({@code ortho-remote-rx-N}, the <em>pump</em>) takes it
 *       when no caller did for {@link #REARM_NANOS} after the last one handed it back, or at once
 *       when a frame may come that nobody receives ({@link Transport.Listener#expectsFrames},
 *       bytes left unparsed, half a frame: the returning caller wakes it), or when a virtual
 *       thread waits (it never reads: the pump receives for it); so unsolicited frames (reports,
 *       pongs, a close) are read while no caller waits. While the pump blocks in the read a
 *       caller cannot take the role: it marks {@link ReceiveRole#WANTED} and waits as before (the
 *       pump delivers its frame); the pump hands the role back once nothing more is expected, so
 *       the next caller receives itself. Callers waiting back to back keep the role from the pump
 *       without waking it.
 * </ul>
 *
 * <p><b>Deadlines, interrupts, wake-ups, close.</b> A receiving caller's reads are bounded by
 * its deadline ({@link BlockingSocket#readUntil}) and, where the socket slices its reads (the
 * native socket always, the streams once a bound was asked for), last at most
 * {@link BlockingSocket#READ_SLICE_NANOS}: the caller itself sees its deadline (at once) or its
 * interrupt (within a slice) and returns, whatever the peer does (its wait ends with
 * DEADLINE_EXCEEDED or ABORTED; the connection serves on). A deadline farther than twice the
 * owner's liveness deadline is not given to the socket (the liveness check closes a silent peer
 * first, and the streams stay untimed). Faster than a slice, and where the socket does not
 * slice, the pump watches the caller (every {@link #IDLE_NANOS}, and at a deadline the socket
 * does not bound): once it was interrupted or such a deadline passed, the pump asks the peer for
 * a frame ({@code askPeerForFrame}: a ping, answered at once), which ends the blocked read.
 * {@link #wakeReceiver} (the wait may have ended without a frame: a host signal) asks the peer
 * for a frame the same way (a silent peer: the next slice ends the read). {@link #close} from
 * any thread closes the socket, which ends a blocked read or write at once.
 *
 * <p><b>Writes.</b> The socket writes blocking: senders write the queue themselves when no other
 * thread does (frames queued meanwhile go out with it); a sender blocks only while the socket is
 * full, bounded by the liveness check, which closes a peer that stops reading. An interrupt does
 * not affect such a write. The I/O loop thread (liveness ticks, deferred flushes) and virtual
 * threads never write here: they hand the queue to a writer thread ({@code ortho-remote-tx-N},
 * started on demand). The queue limit (RESOURCE_EXHAUSTED past four maximum frames) and lent
 * payloads are {@link OutboundQueue}'s, as for {@link TcpConnection}.
 *
 * <p><b>Threads.</b> Any thread may send, flush, wake or close; the pump and one receiving
 * platform thread at a time read; the I/O loop runs ticks and {@link #executeLater} tasks only.
 */
public final class BlockingTcpConnection implements Transport {
    /** The role bit of the pump ({@link ReceiveRole#PUMP}). */
    static final int PUMP = ReceiveRole.PUMP;
    /** The role bit of a receiving caller. */
    static final int CALLER = ReceiveRole.CALLER;
    /** A caller found the pump in a read ({@link ReceiveRole#WANTED}). */
    static final int WANTED = ReceiveRole.WANTED;
    /** How long after a receiving caller returns the pump reads again (callers back to back keep the role). */
    static final long REARM_NANOS = TcpConnection.REARM_NANOS;
    /**
     * How often the pump looks at a caller holding the role: a frame nobody waits for or expects
     * (a pong, a server's notice) is read this long after the last caller returned at worst
     * (frames someone expects are read at once: the caller's return wakes the pump), and an
     * interrupted receiving caller is noticed within this long.
     */
    static final long IDLE_NANOS = 10_000_000;

    private static final AtomicInteger THREADS = new AtomicInteger();

    private final IoLoop loop;
    private final BlockingSocket socket;
    /** Deadlines farther than this are not given to the socket (twice the owner's liveness deadline). */
    private final long unboundedBeyondNanos;
    private final String peer;
    /** Makes the peer send a frame soon (a ping): ends a blocked read. */
    private final Runnable askPeerForFrame;
    private final OutboundQueue out;
    private final FrameReceiver receiver;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Who reads: the pump or one caller. */
    private final ReceiveRole role = new ReceiveRole();
    /** When a holder last handed the role back; the pump waits {@link #REARM_NANOS} from it. */
    private volatile long releasedNanos = System.nanoTime() - 2 * REARM_NANOS;
    /** The caller receiving now, or null (for {@link #wakeReceiver} and the pump's watch). */
    private volatile Thread receiving;
    /** The receiving caller's deadline (a hint for the pump's watch). */
    private volatile long receivingDeadline = Long.MAX_VALUE;
    /** The socket ends the receiving caller's reads at its deadline and every slice (the pump need not ask the peer for its deadline). */
    private volatile boolean receivingBounded;
    /** Counts the callers' receives; the pump asks for a frame at most once per receive. */
    private volatile long receives;
    /** The receive the pump last asked the peer for a frame for (pump only). */
    private long askedFor = -1;
    /** When the pump wakes next to watch a receiving caller (a hint for callers with a nearer deadline). */
    private volatile long pumpWakeNanos = Long.MAX_VALUE;
    private final Thread pump;
    /** Writes for threads that must not write here: the I/O loop, virtual threads. */
    private final ThreadPoolExecutor writer;
    private final AtomicLong writerHandOffs = new AtomicLong();
    private final AtomicLong peerAsks = new AtomicLong();
    private final long openedNanos = System.nanoTime();
    private volatile Listener listener;
    private volatile StatusException closeAfterFlush;

    /**
     * @param loop runs ticks and {@link #executeLater} tasks (the socket is not registered with it)
     * @param socket a connected socket ({@link BlockingSockets#connect}); owned from now on
     * @param askPeerForFrame sends the peer something it answers at once (a ping); any thread.
     *     The owner must also close the connection when the peer stays silent (its liveness
     *     check): a read that is not bounded ends only through the peer's answer
     * @param livenessNanos the owner's liveness deadline: how long a silent peer stays connected
     */
    public BlockingTcpConnection(IoLoop loop, BlockingSocket socket, int maxFrameBytes, String peer,
            Runnable askPeerForFrame, long livenessNanos) {
        this.loop = loop;
        this.socket = socket;
        this.unboundedBeyondNanos = livenessNanos > Long.MAX_VALUE / 4 ? Long.MAX_VALUE : 2 * livenessNanos;
        this.peer = peer;
        this.askPeerForFrame = askPeerForFrame;
        ConnectionLink link = new ConnectionLink() {
            @Override
            public boolean closed() {
                return closed.get();
            }

            @Override
            public void close(StatusException reason) {
                BlockingTcpConnection.this.close(reason);
            }

            @Override
            public StatusException unavailable(String why) {
                return BlockingTcpConnection.this.unavailable(why);
            }

            @Override
            public void readOnLoopSoon() {
                // the pump and the receiving callers parse what is left before they block again
            }

            @Override
            public void flushFromLoop() {
                // no TLS here
            }
        };
        this.out = new OutboundQueue(link, socket, null, peer, 4L * maxFrameBytes);
        this.receiver = new FrameReceiver(link, null, socket, true, null, peer, maxFrameBytes, maxFrameBytes);
        int n = THREADS.incrementAndGet();
        this.pump = Thread.ofPlatform().daemon().name("ortho-remote-rx-" + n).unstarted(this::pump);
        this.writer = new ThreadPoolExecutor(0, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                Thread.ofPlatform().daemon().name("ortho-remote-tx-" + n).factory());
    }

    /** Starts the reader thread, delivering to {@code listener}. Call once. */
    public void start(Listener listener) {
        this.listener = listener;
        receiver.listener(listener);
        pump.start();
    }

    public String peer() {
        return peer;
    }

    // ---- receiving ----

    /**
     * The pump: takes the read role when it is free and no caller handed it back in the last
     * {@link #REARM_NANOS} (at once if {@link ReceiveRole#URGENT}), reads until a caller asked for the role
     * and nothing more is expected, then hands it back. While a caller holds the role, watches it.
     */
    private void pump() {
        try {
            while (!closed.get()) {
                long now = System.nanoTime();
                long wait = releasedNanos + REARM_NANOS - now;
                if (!role.takeForPump(wait <= 0)) {
                    // a caller receives: its return wakes us if a frame may come that nobody
                    // receives; meanwhile we watch it. Or a caller returned lately: the next one
                    // may come at once
                    if (role.holder() == CALLER) {
                        long park = watchCaller(now);
                        pumpWakeNanos = now + park;
                        LockSupport.parkNanos(this, park);
                        pumpWakeNanos = Long.MAX_VALUE;
                    } else {
                        pumpWakeNanos = now + Math.max(wait, 1);
                        LockSupport.parkNanos(this, Math.max(wait, 1));
                        pumpWakeNanos = Long.MAX_VALUE;
                    }
                    continue;
                }
                try {
                    do {
                        receiver.read(true);
                    } while (!closed.get() && !handBack());
                } finally {
                    releasedNanos = System.nanoTime();
                    role.releaseByPump();
                }
            }
        } catch (IOException e) {
            if (!closed.get()) {
                close(unavailable(readFailure(e)));
            }
        } catch (RuntimeException | Error e) {
            // as on the I/O thread: not survived half-way; the waiters get UNAVAILABLE naming it
            close(unavailable("the reader thread stopped by " + e));
        }
    }

    /**
     * The pump watches the receiving caller: once it was interrupted, or a deadline the socket
     * does not bound passed, asks the peer for a frame (once per receive), which ends its read.
     * Returns how long to sleep before looking again: {@link #IDLE_NANOS}, or less if such a
     * deadline is nearer.
     */
    private long watchCaller(long now) {
        Thread caller = receiving;
        long deadline = receivingBounded ? Long.MAX_VALUE : receivingDeadline;
        long receive = receives;
        if (caller != null && receive != askedFor && (caller.isInterrupted() || Transport.passed(deadline))
                && role.holder() == CALLER) {
            askedFor = receive;
            peerAsks.incrementAndGet();
            askPeerForFrame.run();
        }
        if (deadline == Long.MAX_VALUE || deadline == Long.MIN_VALUE || receive == askedFor) {
            return IDLE_NANOS;
        }
        return Math.max(1, Math.min(IDLE_NANOS, deadline - now));
    }

    /** The pump's read returned: whether it hands the role to a caller that asked, nothing more being expected. */
    private boolean handBack() {
        return role.wanted() && !receiver.hasUnparsed() && !receiver.midFrame() && !expectsFrames();
    }

    /**
     * Receives on the caller's thread, blocking in the socket's read, while {@code waiting} holds,
     * the deadline is ahead and the thread is not interrupted (see the class comment). False if
     * the caller is a virtual thread (the pump receives for it from now on), another thread holds
     * the read role (if the pump, it hands the role back once nothing more is expected), or the
     * connection is closed or not started.
     */
    @Override
    public boolean receiveWhile(BooleanSupplier waiting, long deadlineNanos) {
        if (closed.get() || listener == null) {
            return false;
        }
        Thread self = Thread.currentThread();
        if (self.isVirtual()) {
            receiveOnOwnThread(); // a virtual thread never blocks in the socket (see SocketStreams)
            return false;
        }
        if (!role.takeForCaller()) {
            return false;
        }
        boolean bounded = socket.readUntil(deadlineNanos != Long.MIN_VALUE
                && deadlineNanos - System.nanoTime() < unboundedBeyondNanos ? deadlineNanos : Long.MAX_VALUE);
        receivingBounded = bounded;
        socket.callerReads(true);
        receivingDeadline = deadlineNanos;
        receives++; // (role holder only)
        receiving = self;
        if (!bounded && deadlineNanos != Long.MAX_VALUE && deadlineNanos - pumpWakeNanos < 0) {
            LockSupport.unpark(pump); // it watches for a nearer deadline than it sleeps for
        }
        try {
            while (!closed.get() && waiting.getAsBoolean()) {
                if (Transport.passed(deadlineNanos) || self.isInterrupted()) {
                    if (receiver.hasUnparsed()) {
                        receiver.read(false); // what already arrived, without reading the socket
                    }
                    break;
                }
                receiver.read(true); // blocks until bytes arrive; returns after a frame
            }
        } catch (IOException e) {
            if (!closed.get()) {
                close(unavailable(readFailure(e)));
            }
        } catch (Error e) {
            // as on the reader thread: an Error while handling frames fails the connection
            close(unavailable("receiving on a waiting caller's thread stopped by " + e));
        } finally {
            receiving = null;
            receivingDeadline = Long.MAX_VALUE;
            socket.readUntil(Long.MAX_VALUE); // the next holder's reads: unbounded unless it bounds them
            socket.callerReads(false);
            releaseByCaller();
        }
        return true;
    }

    /** The receiving caller hands the role back; the pump reads at once if a frame may come that nobody receives. */
    private void releaseByCaller() {
        boolean urgent = receiver.hasUnparsed() || receiver.midFrame() || expectsFrames();
        releasedNanos = System.nanoTime();
        role.releaseByCaller(urgent);
        if (urgent) {
            LockSupport.unpark(pump);
        }
    }

    /** {@link Transport.Listener#expectsFrames}; true if it fails (reading promptly is always safe). */
    private boolean expectsFrames() {
        try {
            Listener l = listener;
            return l == null || l.expectsFrames();
        } catch (RuntimeException e) {
            return true;
        }
    }

    /** The pump reads from now on (several replies are in flight, or a virtual thread waits). */
    @Override
    public void receiveOnOwnThread() {
        role.urge();
        LockSupport.unpark(pump);
    }

    /**
     * A receiving caller's wait may have ended without a frame: asks the peer for one, which
     * ends its read (a caller not yet in the read sees its condition before it reads).
     */
    @Override
    public void wakeReceiver() {
        if (role.holder() == CALLER && receiving != Thread.currentThread() && !closed.get()) {
            peerAsks.incrementAndGet();
            askPeerForFrame.run(); // (not for the receiving thread itself, e.g. a callback it runs)
        }
    }

    private String readFailure(IOException e) {
        return "read failed: " + (e.getMessage() == null ? e.toString() : e.getMessage());
    }

    // ---- sending ----

    @Override
    public void send(ByteBuffer frame) {
        if (out.enqueue(frame)) {
            write();
        }
    }

    @Override
    public void sendAll(java.util.List<ByteBuffer> frames) {
        if (out.enqueueAll(frames)) {
            write();
        }
    }

    /** As {@link TcpConnection#sendDeferred}: written with the next send or flush, else by the loop soon. */
    @Override
    public void sendDeferred(ByteBuffer frame) {
        out.enqueueDeferred(frame, loop, this::write, this::write);
    }

    @Override
    public void flush() {
        if (!out.isEmpty()) {
            write();
        }
    }

    /**
     * Writes the frame on the calling thread: takes the write role (frames queued before go
     * first) and writes {@code head} and {@code payload} in pieces, blocking while the socket is
     * full. On the loop thread or a virtual thread, as {@link Transport}'s default (copied into one
     * frame, which the writer thread writes).
     */
    @Override
    public void sendWithPayload(ByteBuffer head, ByteBuffer payload) {
        if (handsOffWrites()) {
            Transport.super.sendWithPayload(head, payload);
            return;
        }
        if (!out.acquire()) {
            return; // closed: frames sent after close are dropped
        }
        try {
            drainAll();
            while (head.hasRemaining() || payload.hasRemaining()) {
                out.writePiece(head, payload); // blocks while the socket is full
            }
            finishWriting();
        } catch (IOException e) {
            out.release();
            if (!closed.get()) {
                close(unavailable(writeFailure(e)));
            }
        }
    }

    /** As {@link TcpConnection#sendLent}: written from the payload's memory, given back once written or closed. */
    @Override
    public void sendLent(ByteBuffer head, ByteBuffer payload, Runnable returned) {
        if (out.enqueueLent(head, payload, returned)) {
            write();
        }
    }

    /** The caller must not write the socket: the I/O loop (never blocks), a virtual thread (see {@link SocketStreams}). */
    private boolean handsOffWrites() {
        return loop.inLoop() || Thread.currentThread().isVirtual();
    }

    /** Writes the queue here, or on the writer thread from the loop or a virtual thread. */
    private void write() {
        if (handsOffWrites()) {
            writerHandOffs.incrementAndGet();
            try {
                writer.execute(this::writeHere);
            } catch (RejectedExecutionException e) {
                // closed: frames sent after close are dropped
            }
            return;
        }
        writeHere();
    }

    /** Writes what is queued unless another thread holds the write role (it writes what this queued). */
    private void writeHere() {
        if (!out.tryAcquire()) {
            return;
        }
        try {
            drainAll();
            finishWriting();
        } catch (IOException e) {
            out.release();
            if (!closed.get()) {
                close(unavailable(writeFailure(e)));
            }
        }
    }

    /** Writes the queue out (holder of the write role); each write blocks until its piece went out. */
    private void drainAll() throws IOException {
        while (!out.drain()) {
            if (closed.get()) {
                return;
            }
        }
    }

    /** Releases the write role; re-acquires it if a frame slipped in meanwhile; closes after a flush if asked. */
    private void finishWriting() throws IOException {
        while (true) {
            out.release();
            StatusException after = closeAfterFlush;
            if (after != null && out.isEmpty()) {
                close(after);
                return;
            }
            if (out.isEmpty() || !out.tryAcquire()) {
                return;
            }
            drainAll();
        }
    }

    private String writeFailure(IOException e) {
        return "write failed: " + (e.getMessage() == null ? e.toString() : e.getMessage());
    }

    @Override
    public void executeLater(Runnable task, long delayNanos) {
        loop.executeLater(task, delayNanos);
    }

    // ---- life cycle ----

    @Override
    public void close(StatusException reason) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        socket.close(); // ends a blocked read or write at once
        receiver.abortSink(); // no byte lands in lent memory from now on
        out.returnLent();
        LockSupport.unpark(pump);
        writer.shutdown();
        Listener l = listener;
        if (l != null) {
            l.onClosed(reason);
        }
    }

    @Override
    public void closeAfterFlush(StatusException reason) {
        closeAfterFlush = reason;
        if (handsOffWrites()) {
            write();
            return;
        }
        if (out.tryAcquire()) {
            try {
                drainAll();
                finishWriting();
            } catch (IOException e) {
                out.release();
                close(reason);
            }
        }
    }

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

    @Override
    public long peerSinceNanos() {
        return openedNanos;
    }

    /** How often a write was handed to the writer thread (a diagnostic). */
    long writerHandOffs() {
        return writerHandOffs.get();
    }

    /** How often the peer was asked for a frame to end a receiving caller's read (a diagnostic). */
    long peerAsks() {
        return peerAsks.get();
    }

    /** The read role's bits ({@link ReceiveRole}; a diagnostic). */
    int roleBits() {
        return role.bits();
    }

    /** The reader thread (for tests: it ends once the connection closed). */
    Thread pumpThread() {
        return pump;
    }

    @Override
    public String diagnostics() {
        return "blocking tcp to " + peer + " closed=" + closed.get() + " " + out.diagnostics() + " role=" + role.bits()
                + " pump=" + pump.getState() + " writerHandOffs=" + writerHandOffs.get() + " peerAsks=" + peerAsks.get();
    }

    StatusException unavailable(String why) {
        return new StatusException(StatusCode.UNAVAILABLE, "connection to " + peer + ": " + why);
    }
}
