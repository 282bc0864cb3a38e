package dev.ortho.hal.remote.internal.transport;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SocketChannel;

/**
 * The frame receive state machine of one {@link TcpConnection}: turns the bytes its socket
 * delivers into frames for its {@link Transport.Listener} (length prefix checked against the
 * frame limit before anything is allocated; a body that grows with what arrives; a large frame
 * read straight into a lent {@link BodySink}). See {@link TcpConnection}'s class comment for the
 * limits and why.
 *
 * <p><b>Threads.</b> Only the holder of the connection's {@link ReadRole} runs {@link #read} and
 * reads the receive state (the I/O loop or one caller in {@link TcpConnection#receiveWhile});
 * the role's CAS hands the plain fields from one holder to the next. Not thread-safe otherwise.
 * The exceptions, safe from any thread: {@link #authenticated}, {@link #lastReceiveNanos} and
 * {@link #abortSink} (volatile fields). The connection owns this object and the socket; this
 * object owns the receive buffer and a body being received, and uses a lent sink until it
 * finished or aborted it.
 */
final class FrameReceiver {
    private static final int MAX_FRAMES_PER_READY = 64;

    private final ConnectionLink connection;
    /** The socket, for TLS (null without TLS). */
    private final SocketChannel channel;
    /** Where plain bytes come from: the socket, or the streams of a {@link BlockingTcpConnection}'s socket. */
    private final ReadableByteChannel source;
    /**
     * Reads block ({@link BlockingTcpConnection}): {@link #read(boolean)} makes at most one socket
     * read once a frame was delivered, so a reader whose frame came never blocks for the next.
     */
    private final boolean blocking;
    /** This {@link #read} may read the socket now (blocking reads: no frame delivered yet in it, and asked to). */
    private boolean socketAllowed;
    /** TLS between the frames and the socket, or null for plain TCP (the connection's). */
    private final TlsLayer tls;
    private final String peer;
    private final int maxFrameBytes;
    /** The largest frame accepted now: starts small on a server, {@link #maxFrameBytes} once authenticated. */
    private volatile int frameLimit;
    private volatile Transport.Listener listener;
    private volatile long lastReceiveNanos = System.nanoTime();
    /** Received bytes not parsed yet, in read mode; see {@link #fill}. */
    private ByteBuffer in;
    /** The last {@link #fill} of this wake-up left room in {@link #in}, so the socket is empty (plain TCP). */
    private boolean drained;
    private ByteBuffer body;
    /** The length of the frame being received. */
    private int bodyLength;
    /** A large frame's length was read and its first bytes are awaited, for {@link Transport.Listener#bodySink}. */
    private boolean awaitingPrefix;
    /** Where the rest of the frame being received goes, or null (volatile: close() aborts it). */
    private volatile BodySink sink;
    /** Bytes of the sink's frame not received yet. */
    private int sinkLeft;

    FrameReceiver(ConnectionLink connection, SocketChannel channel, TlsLayer tls, String peer,
            int initialMaxFrameBytes, int maxFrameBytes) {
        this(connection, channel, channel, false, tls, peer, initialMaxFrameBytes, maxFrameBytes);
    }

    /**
     * @param source where plain bytes are read from
     * @param blocking reads of {@code source} block (see {@link #read(boolean)})
     */
    FrameReceiver(ConnectionLink connection, SocketChannel channel, ReadableByteChannel source, boolean blocking,
            TlsLayer tls, String peer, int initialMaxFrameBytes, int maxFrameBytes) {
        this.connection = connection;
        this.channel = channel;
        this.source = source;
        this.blocking = blocking;
        this.tls = tls;
        this.peer = peer;
        this.maxFrameBytes = maxFrameBytes;
        this.frameLimit = Math.min(initialMaxFrameBytes, maxFrameBytes);
        this.in = ByteBuffer.allocateDirect(Math.min(TcpConnection.RECEIVE_BUFFER_BYTES,
                this.frameLimit + Protocol.LENGTH_BYTES)).order(ByteOrder.LITTLE_ENDIAN).flip();
    }

    /** Where frames go from now on (before the first {@link #read}). */
    void listener(Transport.Listener listener) {
        this.listener = listener;
    }

    /** The peer authenticated: frames up to the full maximum are accepted from now on. */
    void authenticated() {
        frameLimit = maxFrameBytes;
    }

    /** When bytes last arrived (or when this was made). */
    long lastReceiveNanos() {
        return lastReceiveNanos;
    }

    /** Received bytes wait unparsed (read-role holder). */
    boolean hasUnparsed() {
        return in.hasRemaining();
    }

    /** A frame is partly received, so its rest will come with nobody waiting for it (read-role holder). */
    boolean midFrame() {
        return sink != null || awaitingPrefix || body != null;
    }

    /** Bytes allocated now for a partly received body (read-role holder). */
    int bodyBytes() {
        ByteBuffer b = body;
        return b == null ? 0 : b.capacity();
    }

    /** The connection closed: no byte lands in a lent sink from now on (any thread; the reader may still be in a read). */
    void abortSink() {
        BodySink lentSink = sink;
        if (lentSink != null) {
            lentSink.abort();
        }
    }

    /**
     * Parses every whole frame the socket holds: bytes arrive in {@link #in} (one system call
     * for a burst of small frames, not two per frame) and are copied into each frame's body; a
     * body that still misses at least a buffer's worth is read into directly.
     */
    void read() throws IOException {
        read(true);
    }

    /**
     * {@link #read()}; with blocking reads, {@code mayReadSocket} false parses only what was
     * already received, and once a frame was delivered no further socket read is made (the
     * reader checks what it waits for first), so one call blocks at most until bytes arrive.
     */
    void read(boolean mayReadSocket) throws IOException {
        int frames = 0;
        drained = false;
        socketAllowed = mayReadSocket || !blocking;
        while (frames < MAX_FRAMES_PER_READY && !connection.closed()) {
            if (sink != null) {
                int done = receiveIntoSink();
                if (done <= 0) {
                    return; // more later, or closed
                }
                frames++;
                socketAllowed = !blocking; // a blocking reader checks its wait before reading again
                continue;
            }
            if (awaitingPrefix) {
                if (in.remaining() < Transport.SINK_PREFIX_BYTES) {
                    if (drained || !socketAllowed) {
                        return;
                    }
                    if (fill() < 0) {
                        connection.close(connection.unavailable("peer closed the connection inside a frame (" + in.remaining() + " of "
                                + bodyLength + " bytes received)"));
                        return;
                    }
                    if (in.remaining() < Transport.SINK_PREFIX_BYTES) {
                        return; // the socket is drained; more later
                    }
                }
                awaitingPrefix = false;
                if (!lendBody()) {
                    return; // closed
                }
                continue;
            }
            if (body == null) {
                if (in.remaining() < Protocol.LENGTH_BYTES) {
                    if (drained || !socketAllowed) {
                        return; // the last read left room: the socket held no more (saves a read per wake-up)
                    }
                    int n = fill();
                    if (n < 0) {
                        connection.close(connection.unavailable(in.hasRemaining() ? "peer closed the connection inside a frame length"
                                : "peer closed the connection"));
                        return;
                    }
                    if (in.remaining() < Protocol.LENGTH_BYTES) {
                        return; // the socket is drained; more later
                    }
                }
                int length = in.getInt();
                int limit = frameLimit;
                if (length < Protocol.HEADER_BYTES || length > limit) {
                    connection.close(new StatusException(StatusCode.INVALID_ARGUMENT, "frame length "
                            + Integer.toUnsignedString(length) + " from " + peer + " is outside ["
                            + Protocol.HEADER_BYTES + ", " + limit + "]"
                            + (limit < maxFrameBytes ? " before authentication" : "")));
                    return;
                }
                bodyLength = length;
                if (length >= Transport.SINK_MIN_BODY_BYTES && tls == null) {
                    awaitingPrefix = true; // the listener may lend the memory the bytes are bound for
                    continue;
                }
                body = ByteBuffer.allocate(Math.min(length, TcpConnection.FIRST_BODY_CHUNK));
            }
            if (in.hasRemaining()) {
                int take = Math.min(in.remaining(), body.remaining());
                body.put(body.position(), in, in.position(), take);
                body.position(body.position() + take);
                in.position(in.position() + take);
            }
            if (body.position() < bodyLength) {
                if (!body.hasRemaining()) { // grow with what arrived: a peer holds at most twice what it sent
                    body = ByteBuffer.allocate((int) Math.min(bodyLength, 2L * body.capacity())).put(body.flip());
                    continue;
                }
                if (!socketAllowed) {
                    return; // a blocking reader whose frame came: the rest later
                }
                int n;
                if (body.remaining() >= in.capacity()) {
                    // a large body: straight in, not through the receive buffer; in slices, as
                    // the JDK reads into a temporary direct buffer as large as the heap buffer's room
                    ByteBuffer slice = body.slice(body.position(), Math.min(body.remaining(), TcpConnection.IO_SLICE_BYTES));
                    n = readIn(slice);
                    if (n > 0) {
                        body.position(body.position() + n);
                    }
                    if (n > 0) {
                        lastReceiveNanos = System.nanoTime(); // a long frame still proves the peer alive
                    }
                } else {
                    n = fill();
                }
                if (n < 0) {
                    connection.close(connection.unavailable("peer closed the connection inside a frame (" + body.position() + " of "
                            + bodyLength + " bytes received)"));
                    return;
                }
                if (n == 0) {
                    return; // the socket is drained; more later
                }
                continue;
            }
            ByteBuffer frame = body.flip();
            body = null;
            lastReceiveNanos = System.nanoTime();
            frames++;
            socketAllowed = !blocking; // a blocking reader checks its wait before reading again
            try {
                listener.onFrame(frame);
            } catch (StatusException e) {
                connection.close(e.annotate("while handling a frame from " + peer));
                return;
            } catch (RuntimeException e) {
                connection.close(new StatusException(StatusCode.INTERNAL, "handling a frame from " + peer + " failed: " + e, e));
                return;
            }
        }
        if (!connection.closed() && (tls != null || in.hasRemaining())) {
            // bytes already received (decrypted, or parsed frames left after the per-ready cap)
            // while the socket may be drained: no readiness would come for them
            connection.readOnLoopSoon();
        }
    }

    /**
     * The first bytes of a large frame are in {@link #in}: asks the listener for a sink
     * ({@link Transport.Listener#bodySink}); without one, the frame is received into a body as
     * usual. False if the connection closed.
     */
    private boolean lendBody() {
        BodySink lent;
        try {
            lent = listener.bodySink(in.slice(in.position(), Transport.SINK_PREFIX_BYTES)
                    .order(ByteOrder.LITTLE_ENDIAN), bodyLength);
        } catch (StatusException e) {
            connection.close(e.annotate("while handling a frame from " + peer));
            return false;
        } catch (RuntimeException e) {
            connection.close(new StatusException(StatusCode.INTERNAL, "handling a frame from " + peer + " failed: " + e, e));
            return false;
        }
        if (lent == null) {
            body = ByteBuffer.allocate(Math.min(bodyLength, TcpConnection.FIRST_BODY_CHUNK));
            return true;
        }
        int offset = lent.dataOffset();
        if (offset < Protocol.HEADER_BYTES || offset > Transport.SINK_PREFIX_BYTES
                || lent.missing() != bodyLength - offset) {
            lent.abort();
            connection.close(new StatusException(StatusCode.INTERNAL, "a body sink for a frame of " + bodyLength + " bytes from "
                    + peer + " starts at " + offset + " and takes " + lent.missing() + " bytes"));
            return false;
        }
        in.position(in.position() + offset);
        sinkLeft = bodyLength - offset;
        sink = lent;
        if (connection.closed()) {
            lent.abort(); // connection.close() may have missed it
            return false;
        }
        return true;
    }

    /**
     * Receives the sink's frame: what {@link #in} holds, then straight from the socket into the
     * sink (through {@link #in}, and dropped, if it was aborted); 1 once the frame is complete
     * (the sink completed), 0 if the socket is drained, -1 if the connection closed.
     */
    private int receiveIntoSink() throws IOException {
        BodySink s = sink;
        while (sinkLeft > 0) {
            if (in.hasRemaining()) {
                int take = Math.min(in.remaining(), sinkLeft);
                s.put(in, take);
                sinkLeft -= take;
                continue;
            }
            if (drained || !socketAllowed) {
                return 0; // the last read left room: nothing more now
            }
            int n = s.read(source, TcpConnection.IO_SLICE_BYTES);
            if (n == BodySink.ABORTED) {
                n = fill(); // nobody wants the rest: skip it through the receive buffer
            } else if (n > 0) {
                sinkLeft -= n;
                lastReceiveNanos = System.nanoTime(); // a long frame still proves the peer alive
                drained = s.lastReadShort();
            }
            if (n < 0) {
                connection.close(connection.unavailable("peer closed the connection inside a frame (" + (bodyLength - sinkLeft) + " of "
                        + bodyLength + " bytes received)"));
                return -1;
            }
            if (n == 0) {
                return 0;
            }
        }
        sink = null;
        lastReceiveNanos = System.nanoTime();
        try {
            s.finish();
        } catch (StatusException e) {
            connection.close(e.annotate("while handling a frame from " + peer));
            return -1;
        } catch (RuntimeException e) {
            connection.close(new StatusException(StatusCode.INTERNAL, "handling a frame from " + peer + " failed: " + e, e));
            return -1;
        }
        return 1;
    }

    /**
     * Reads what the socket holds into {@link #in} after its unparsed bytes (kept in read
     * mode); bytes read, 0 if none now, -1 at the end. Before authentication the buffer is a few
     * hundred bytes (an unauthenticated peer makes a server hold no more); afterwards
     * {@value TcpConnection#RECEIVE_BUFFER_BYTES}.
     */
    private int fill() throws IOException {
        if (in.capacity() < TcpConnection.RECEIVE_BUFFER_BYTES && frameLimit > in.capacity()) {
            in = ByteBuffer.allocateDirect(TcpConnection.RECEIVE_BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN).put(in).flip();
        }
        in.compact();
        int room = in.remaining();
        int n;
        try {
            n = readIn(in);
        } finally {
            in.flip();
        }
        drained = tls == null && n >= 0 && n < room;
        if (n > 0) {
            lastReceiveNanos = System.nanoTime();
        }
        return n;
    }

    /** Reads from the socket, through TLS if any: bytes delivered, 0 if none now, -1 at the end. */
    private int readIn(ByteBuffer dst) throws IOException {
        if (tls == null) {
            return source.read(dst);
        }
        int n = tls.read(channel, dst);
        if (n == 0 && tls.wantsWrap()) {
            connection.flushFromLoop(); // the engine must answer (a key update, a close)
            if (!tls.wantsWrap()) {
                n = tls.read(channel, dst);
            }
        }
        return n;
    }
}
