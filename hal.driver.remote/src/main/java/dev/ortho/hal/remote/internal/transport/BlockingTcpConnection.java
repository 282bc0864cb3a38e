package dev.ortho.hal.remote.internal.transport;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SocketChannel;
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
 * {@code read} (a blocking channel, never registered with a selector): the round trip a waiting
 * caller makes is caller → peer → caller with one system call that sleeps and returns the bytes
 * on each receive, as a blocking socket's, not an {@code epoll_wait} through a {@code Selector}
 * followed by a {@code read} ({@link TcpConnection}, kept for servers and TLS).
 *
 * <p><b>Who reads.</b> The <em>read role</em> ({@link ReceiveRole})
 * is held by at most one thread, which alone runs the {@link FrameReceiver}:
 * <ul>
 *   <li>a caller waiting for the peer ({@link #receiveWhile}) takes it if nobody holds it, and
 *       blocks in the socket's read itself until its wait ends; frames for others are delivered
 *       on its thread too, one at a time;
 *   <li>the connection's reader thread ({@code ortho-remote-rx-N}, the <em>pump</em>) takes it
 *       when no caller did for {@link #REARM_NANOS} after the last one handed it back (it looks
 *       every {@link #IDLE_NANOS} while callers hold the role, so within that long), or at once
 *       when a frame may come that nobody receives ({@link Transport.Listener#expectsFrames},
 *       bytes left unparsed, half a frame: the returning caller wakes it); so unsolicited frames
 *       (reports, pongs, a close) are read while no caller waits. While the pump blocks in the read a caller cannot take the
 *       role: it marks {@link ReceiveRole#WANTED} and waits as before (the pump delivers its frame); the
 *       pump hands the role back once nothing more is expected, so the next caller receives
 *       itself. Callers waiting back to back keep the role from the pump without waking it.
 * </ul>
 *
 * <p><b>Deadlines, wake-ups, close.</b> A read whose deadline is farther away than
 * {@code untimedHorizonNanos} blocks untimed (one {@code read}): the owner's liveness check
 * makes a frame arrive (its pings are answered) or closes the channel well before such a
 * deadline. A nearer deadline reads through the socket's stream with a socket timeout, so the
 * read ends on the deadline ({@code poll} with a timeout, then {@code read}). {@link #wakeReceiver}
 * (the wait may have ended without a frame) asks the peer for a frame ({@code askPeerForFrame}:
 * a ping, answered at once), which ends a blocked read. {@link #close} from any thread closes the
 * channel, which ends a blocked read or write at once.
 *
 * <p><b>Writes.</b> A blocking channel writes blocking: a sender writes the queue itself when no
 * other thread does (frames queued meanwhile go out with it); it blocks only while the socket is
 * full, bounded by the liveness check, which closes a peer that stops reading. The I/O loop
 * thread (liveness ticks, deferred flushes) and threads with an interrupt pending never write
 * here: they hand the queue to a writer thread ({@code ortho-remote-tx-N}, started on demand),
 * so the loop never blocks and a pending interrupt never closes the channel. The queue limit
 * (RESOURCE_EXHAUSTED past four maximum frames) and lent payloads are {@link OutboundQueue}'s, as
 * for {@link TcpConnection}.
 *
 * <p><b>Interrupts.</b> A blocking channel is closed by an interrupt that arrives while a thread
 * is blocked in its read or write (the JDK's {@code InterruptibleChannel} contract). A receiving
 * caller with an interrupt pending does not read (it returns, as a selector wait did); an
 * interrupt that arrives while it is blocked in the read closes the connection with UNAVAILABLE
 * naming it. A host that interrupts threads waiting on a remote device uses the selector reader
 * ({@code tcp_reader=selector}) instead.
 *
 * <p><b>Threads.</b> Any thread may send, flush, wake or close; the pump and one receiving caller
 * at a time read; the I/O loop runs ticks and {@link #executeLater} tasks only.
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
     * How long the pump sleeps while a caller holds the role: a frame nobody waits for or
     * expects (a pong, a server's notice) is read this long after the last caller returned at
     * worst; frames someone expects are read at once (the caller's return wakes the pump).
     */
    static final long IDLE_NANOS = 10_000_000;

    private static final AtomicInteger THREADS = new AtomicInteger();

    private final IoLoop loop;
    private final SocketChannel channel;
    private final String peer;
    /** A read whose deadline is farther than this blocks untimed (see the class comment). */
    private final long untimedHorizonNanos;
    /** Makes the peer send a frame soon (a ping): ends a blocked read for {@link #wakeReceiver}. */
    private final Runnable askPeerForFrame;
    private final OutboundQueue out;
    private final FrameReceiver receiver;
    private final Reads reads = new Reads();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Who reads: the pump or one caller. */
    private final ReceiveRole role = new ReceiveRole();
    /** When a holder last handed the role back; the pump waits {@link #REARM_NANOS} from it. */
    private volatile long releasedNanos = System.nanoTime() - 2 * REARM_NANOS;
    /** The caller receiving now, or null (for {@link #wakeReceiver}). */
    private volatile Thread receiving;
    private final Thread pump;
    /** Writes for threads that must not block in a write: the I/O loop, a thread with an interrupt pending. */
    private final ThreadPoolExecutor writer;
    private final AtomicLong writerHandOffs = new AtomicLong();
    private final long openedNanos = System.nanoTime();
    private volatile Listener listener;
    private volatile StatusException closeAfterFlush;

    /**
     * @param loop runs ticks and {@link #executeLater} tasks (the channel is not registered with it)
     * @param channel a connected channel; switched to blocking mode and owned from now on
     * @param untimedHorizonNanos deadlines farther away than this are read for untimed; the owner
     *     must close the connection or make a frame arrive within that long (its liveness check)
     * @param askPeerForFrame sends the peer something it answers at once (a ping); any thread
     */
    public BlockingTcpConnection(IoLoop loop, SocketChannel channel, int maxFrameBytes, String peer,
            long untimedHorizonNanos, Runnable askPeerForFrame) throws IOException {
        this.loop = loop;
        this.channel = channel;
        this.peer = peer;
        this.untimedHorizonNanos = untimedHorizonNanos;
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
        this.out = new OutboundQueue(link, channel, null, peer, 4L * maxFrameBytes);
        this.receiver = new FrameReceiver(link, null, reads, true, null, peer, maxFrameBytes, maxFrameBytes);
        int n = THREADS.incrementAndGet();
        this.pump = Thread.ofPlatform().daemon().name("ortho-remote-rx-" + n).unstarted(this::pump);
        this.writer = new ThreadPoolExecutor(0, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                Thread.ofPlatform().daemon().name("ortho-remote-tx-" + n).factory());
        channel.configureBlocking(true);
        channel.socket().setTcpNoDelay(true);
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
     * and nothing more is expected, then hands it back.
     */
    private void pump() {
        try {
            while (!closed.get()) {
                long wait = releasedNanos + REARM_NANOS - System.nanoTime();
                if (!role.takeForPump(wait <= 0)) {
                    // a caller receives: its return wakes us if a frame may come that nobody
                    // receives; else we look again a while later (not per round trip). Or a caller
                    // returned lately: the next one may come at once
                    LockSupport.parkNanos(this, role.holder() == CALLER ? IDLE_NANOS : Math.max(wait, 1));
                    continue;
                }
                try {
                    reads.deadlineNanos = Long.MAX_VALUE;
                    do {
                        receiver.read(true);
                    } while (!closed.get() && !handBack());
                } finally {
                    releasedNanos = System.nanoTime();
                    role.releaseByPump();
                }
            }
        } catch (IOException e) {
            close(unavailable(readFailure(e)));
        } catch (RuntimeException | Error e) {
            // as on the I/O thread: not survived half-way; the waiters get UNAVAILABLE naming it
            close(unavailable("the reader thread stopped by " + e));
        }
    }

    /** The pump's read returned: whether it hands the role to a caller that asked, nothing more being expected. */
    private boolean handBack() {
        return role.wanted() && !receiver.hasUnparsed() && !receiver.midFrame() && !expectsFrames();
    }

    /**
     * Receives on the caller's thread, blocking in the socket's read, while {@code waiting} holds
     * and the deadline is ahead (see the class comment). False if another thread holds the read
     * role (if the pump, it hands the role back once nothing more is expected) or the connection
     * is closed or not started.
     */
    @Override
    public boolean receiveWhile(BooleanSupplier waiting, long deadlineNanos) {
        if (closed.get() || listener == null || !role.takeForCaller()) {
            return false;
        }
        receiving = Thread.currentThread();
        try {
            reads.deadlineNanos = deadlineNanos;
            while (!closed.get() && waiting.getAsBoolean()) {
                if (Transport.passed(deadlineNanos) || Thread.currentThread().isInterrupted()) {
                    if (receiver.hasUnparsed()) {
                        receiver.read(false); // what already arrived, without reading the socket
                    }
                    break;
                }
                receiver.read(true); // blocks until bytes arrive (or the deadline, if near); returns after a frame
            }
        } catch (ClosedByInterruptException e) {
            close(unavailable("the thread receiving for it was interrupted while blocked in the socket's read"));
        } catch (IOException e) {
            if (!closed.get()) {
                close(unavailable(readFailure(e)));
            }
        } catch (Error e) {
            // as on the reader thread: an Error while handling frames fails the connection
            close(unavailable("receiving on a waiting caller's thread stopped by " + e));
        } finally {
            receiving = null;
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

    /** The pump reads from now on (several replies are in flight). */
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
            askPeerForFrame.run(); // (not for the receiving thread itself, e.g. a callback it runs)
        }
    }

    private String readFailure(IOException e) {
        return "read failed: " + (e.getMessage() == null ? e.toString() : e.getMessage());
    }

    /**
     * The socket's reads for the holder of the read role: untimed (the channel's blocking read)
     * while its deadline is beyond the horizon, else through the socket's stream with a socket
     * timeout until the deadline (0 bytes once it passed).
     */
    private final class Reads implements ReadableByteChannel {
        /** The reader's deadline (guarded by the read role). */
        long deadlineNanos = Long.MAX_VALUE;
        private InputStream timed;
        private byte[] scratch;

        @Override
        public int read(ByteBuffer dst) throws IOException {
            long deadline = deadlineNanos;
            if (deadline == Long.MAX_VALUE
                    || deadline != Long.MIN_VALUE && deadline - System.nanoTime() > untimedHorizonNanos) {
                return channel.read(dst);
            }
            long remaining = deadline == Long.MIN_VALUE ? 0 : deadline - System.nanoTime();
            if (remaining <= 0 || !dst.hasRemaining()) {
                return 0;
            }
            if (timed == null) {
                timed = channel.socket().getInputStream();
                scratch = new byte[TcpConnection.RECEIVE_BUFFER_BYTES];
            }
            channel.socket().setSoTimeout((int) Math.min(Integer.MAX_VALUE, Math.max(1, (remaining + 999_999) / 1_000_000)));
            int n;
            try {
                n = timed.read(scratch, 0, Math.min(scratch.length, dst.remaining()));
            } catch (SocketTimeoutException e) {
                return 0;
            }
            if (n > 0) {
                dst.put(scratch, 0, n);
            }
            return n;
        }

        @Override
        public boolean isOpen() {
            return channel.isOpen();
        }

        @Override
        public void close() {
            // the connection closes the channel
        }
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
     * first) and writes {@code head} and {@code payload} in gathering writes (a heap payload in
     * {@value TcpConnection#IO_SLICE_BYTES}-byte slices), blocking while the socket is full. An
     * interrupt pending on entry is kept for the caller and does not cut the frame short. On the
     * loop thread, as {@link Transport}'s default.
     */
    @Override
    public void sendWithPayload(ByteBuffer head, ByteBuffer payload) {
        if (loop.inLoop()) {
            Transport.super.sendWithPayload(head, payload);
            return;
        }
        boolean interrupted = Thread.interrupted(); // a pending interrupt would close the channel
        try {
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
                close(unavailable(writeFailure(e)));
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
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

    /** Writes the queue here, or on the writer thread from the loop or a thread with an interrupt pending. */
    private void write() {
        if (loop.inLoop() || Thread.currentThread().isInterrupted()) {
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
            close(unavailable(writeFailure(e)));
        }
    }

    /** Writes the queue out (holder of the write role); a blocking write returns short only when interrupted by a signal. */
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
        if (e instanceof ClosedByInterruptException) {
            return "a sending thread was interrupted while blocked in the socket's write";
        }
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
        try {
            channel.close(); // ends a blocked read or write at once
        } catch (IOException ignored) {
            // closing anyway
        }
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
        if (loop.inLoop() || Thread.currentThread().isInterrupted()) {
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
                + " pump=" + pump.getState() + " writerHandOffs=" + writerHandOffs.get();
    }

    StatusException unavailable(String why) {
        return new StatusException(StatusCode.UNAVAILABLE, "connection to " + peer + ": " + why);
    }
}
