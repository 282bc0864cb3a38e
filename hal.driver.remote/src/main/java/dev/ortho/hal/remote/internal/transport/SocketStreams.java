package dev.ortho.hal.remote.internal.transport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;

/**
 * The byte streams of a connected {@link Socket} seen as channels (a {@link BlockingSocket}, the
 * fallback where {@link NativeSocket} is not available), so {@link FrameReceiver} and
 * {@link OutboundQueue} work on them unchanged: {@link #read} blocks until bytes arrive (one
 * {@code read} system call on a blocking socket), {@link #write} returns once every byte it was
 * given went out.
 *
 * <p><b>Why streams and not a {@code SocketChannel}.</b> A blocking {@code SocketChannel} is an
 * {@code InterruptibleChannel}: an interrupt that reaches a thread blocked in its read or write
 * closes the channel. A plain {@code Socket} (the JDK's {@code NioSocketImpl}) blocked in a read
 * on a platform thread is not affected by an interrupt (the read goes on; only
 * {@link Socket#close} from another thread ends it, with a {@code SocketException}). Two rules
 * keep it that way, and keep the socket's descriptor in blocking mode (one system call per read):
 * a virtual thread must never read or write here (the JDK switches the socket to non-blocking
 * mode for good on a virtual thread's first operation, and closes the socket when a virtual
 * thread blocked in it is interrupted), and no timed operation is made on the socket until a
 * reader asks for a bound ({@link #readUntil}; a read timeout or a timed connect switches it to
 * non-blocking mode for good: a read becomes {@code read}, {@code poll}, {@code read}).
 * {@link BlockingTcpConnection} keeps the first rule and bounds reads only for a receive whose
 * deadline may come before its liveness check closes a silent peer.
 *
 * <p><b>Bounds.</b> Until the first bound, reads are untimed: only bytes, the end of the stream
 * or {@link #close} end them (an interrupted reader is ended by the peer's answer to the
 * connection's ping, or by the liveness close if the peer stays silent). From the first bound on
 * the socket is non-blocking anyway, so every read is timed: at most a
 * {@linkplain #READ_SLICE_NANOS slice}, or until the bound, then 0.
 *
 * <p><b>Copies.</b> A stream takes and gives {@code byte[]}s: a heap buffer is read into and
 * written from its array; a direct buffer goes through this object's scratch arrays (and the JDK
 * copies between an array and its own direct buffer once more).
 *
 * <p><b>Threads.</b> One reader at a time (the holder of the connection's read role) and one
 * writer at a time (the holder of its write role); each side has its own scratch array.
 */
final class SocketStreams implements BlockingSocket {
    /** Largest piece one stream call is given (the JDK reads and writes at most 128 KiB per system call). */
    static final int PIECE_BYTES = 128 << 10;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    /** Reader's scratch for direct destinations (read role). */
    private byte[] readScratch;
    /** Writer's scratch for direct and gathered sources (write role). */
    private byte[] writeScratch;
    /** {@link #write(ByteBuffer)}'s source as an array (write role). */
    private final ByteBuffer[] single = new ByteBuffer[1];
    /** {@link #readUntil}'s bound (read role). */
    private long readDeadline = Long.MAX_VALUE;
    /** A bound was asked for once: every read is timed from then on (read role). */
    private boolean timed;
    /** The socket's read timeout now, in milliseconds (0: none; read role). */
    private int timeoutMillis;

    SocketStreams(Socket socket) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    /**
     * A finite bound makes every read timed from now on (see the class comment); without one,
     * whether reads are sliced says whether one was asked for before.
     */
    @Override
    public boolean readUntil(long deadlineNanos) {
        readDeadline = deadlineNanos;
        timed |= deadlineNanos != Long.MAX_VALUE;
        return timed;
    }

    /**
     * Blocks until at least one byte arrives (timed reads: at most a slice, or until the bound):
     * bytes read (0 if {@code dst} is full or none came in time), -1 at the end of the stream.
     */
    @Override
    public int read(ByteBuffer dst) throws IOException {
        int room = Math.min(dst.remaining(), PIECE_BYTES);
        if (room == 0) {
            return 0;
        }
        if (timed) {
            long now = System.nanoTime();
            long left = readDeadline == Long.MAX_VALUE ? READ_SLICE_NANOS : Math.min(readDeadline - now, READ_SLICE_NANOS);
            if (left <= 0) {
                return 0;
            }
            int millis = (int) Math.max(1, (left + 999_999) / 1_000_000);
            if (millis != timeoutMillis) {
                socket.setSoTimeout(millis); // (a field of the JDK's socket: no system call)
                timeoutMillis = millis;
            }
        }
        try {
            if (dst.hasArray()) {
                int n = in.read(dst.array(), dst.arrayOffset() + dst.position(), room);
                if (n > 0) {
                    dst.position(dst.position() + n);
                }
                return n;
            }
            byte[] scratch = readScratch;
            if (scratch == null) {
                scratch = readScratch = new byte[PIECE_BYTES];
            }
            int n = in.read(scratch, 0, room);
            if (n > 0) {
                dst.put(scratch, 0, n);
            }
            return n;
        } catch (SocketTimeoutException e) {
            return 0; // the socket stays usable (Socket's contract for a read timeout)
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        single[0] = src;
        try {
            return (int) write(single, 0, 1);
        } finally {
            single[0] = null;
        }
    }

    /**
     * Writes up to {@value #PIECE_BYTES} bytes of {@code srcs[offset, offset + length)} in order,
     * blocking until they went out; returns how many (fewer than the sources hold only when they
     * hold more than a piece: the caller writes the rest next). A lone heap source is written
     * from its array; anything else is gathered into the scratch array first.
     */
    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        int first = offset;
        while (first < offset + length && !srcs[first].hasRemaining()) {
            first++;
        }
        if (first == offset + length) {
            return 0;
        }
        ByteBuffer lone = srcs[first];
        boolean alone = true;
        for (int i = first + 1; i < offset + length; i++) {
            alone &= !srcs[i].hasRemaining();
        }
        if (alone && lone.hasArray()) {
            int n = Math.min(lone.remaining(), PIECE_BYTES);
            out.write(lone.array(), lone.arrayOffset() + lone.position(), n);
            lone.position(lone.position() + n);
            return n;
        }
        byte[] scratch = writeScratch;
        if (scratch == null) {
            scratch = writeScratch = new byte[PIECE_BYTES];
        }
        int n = 0;
        for (int i = first; i < offset + length && n < PIECE_BYTES; i++) {
            ByteBuffer src = srcs[i];
            int take = Math.min(src.remaining(), PIECE_BYTES - n);
            src.get(scratch, n, take);
            n += take;
        }
        out.write(scratch, 0, n);
        return n;
    }

    @Override
    public boolean isOpen() {
        return !socket.isClosed();
    }

    /** Closes the socket: a read or write blocked in it on another thread ends with a {@code SocketException}. */
    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
