package dev.ortho.hal.remote.internal.transport;

import java.io.IOException;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ReadableByteChannel;

/**
 * A connected TCP socket in blocking mode as {@link BlockingTcpConnection} uses it: {@link #read}
 * blocks until bytes arrive (-1 at the end of the stream), {@link #write} blocks until the socket
 * took some of the bytes, and neither is ended or closed by an interrupt of the calling platform
 * thread; {@link #close} from any thread ends a blocked read or write. One reader and one writer
 * at a time. {@link NativeSocket} (no copies) where available, else {@link SocketStreams}.
 */
public interface BlockingSocket extends ReadableByteChannel, GatheringByteChannel {
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
