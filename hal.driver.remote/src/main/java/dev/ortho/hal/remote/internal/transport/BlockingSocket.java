package dev.ortho.hal.remote.internal.transport;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ReadableByteChannel;

/**
 * A connected TCP socket in blocking mode as {@link BlockingTcpConnection} uses it: {@link #read}
 * blocks until bytes arrive (-1 at the end of the stream; 0 once the bound {@link #readUntil}
 * set passed with no byte), {@link #write} blocks until the socket took some of the bytes, and
 * neither is ended or closed by an interrupt of the calling platform thread; {@link #close} from
 * any thread ends a blocked read or write. One reader and one writer at a time.
 * {@link NativeSocket} (no copies) where available, else {@link SocketStreams}.
 */
public interface BlockingSocket extends ReadableByteChannel, GatheringByteChannel {
    /**
     * The longest a bounded read blocks before it returns 0 so its caller can look at its
     * interrupt and deadline (reads bounded by {@link #readUntil}).
     */
    long READ_SLICE_NANOS = 50_000_000;

    /**
     * Bounds the reads that follow (reader only, until the next call): a read that got no byte
     * returns 0 once {@code deadlineNanos} ({@link System#nanoTime}; {@link Long#MAX_VALUE}: none)
     * passed, and after at most {@link #READ_SLICE_NANOS} if this socket slices its reads.
     * Returns whether it does: then the reader needs nobody to end its read (a deadline or an
     * interrupt is seen within a slice, a deadline nearer than a slice at once). False: only
     * bytes, the end of the stream or {@link #close} end a read.
     */
    boolean readUntil(long deadlineNanos);

    /**
     * Whether the reads that follow are a waiting caller's, whose peer likely answers soon (reader
     * only, until the next call): a socket that can may then poll for up to a spin budget before
     * it blocks ({@link SpinBudget}); the reader thread's reads block at once. Does nothing by default.
     */
    default void callerReads(boolean caller) {
    }

    /** Writes as {@link #write(ByteBuffer[], int, int)} does, from all of {@code srcs}. */
    @Override
    default long write(ByteBuffer[] srcs) throws IOException {
        return write(srcs, 0, srcs.length);
    }

    /** Ends a blocked read or write and closes the socket; idempotent, any thread, never throws. */
    @Override
    void close();

    /** Whether this socket copies direct buffers (a diagnostic). */
    default boolean copies() {
        return true;
    }

    /** Closes the socket for an {@link IOException} path that must not throw again. */
    static void closeQuietly(BlockingSocket socket) {
        if (socket != null) {
            socket.close();
        }
    }
}
