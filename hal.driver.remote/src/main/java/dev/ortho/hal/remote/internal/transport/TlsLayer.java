package dev.ortho.hal.remote.internal.transport;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;

/**
 * The JDK's {@link SSLEngine} between a {@link TcpConnection} and its non-blocking socket:
 * {@link #read} decrypts into the caller's buffer, {@link #write} encrypts a frame, and
 * {@link #handshake} drives the handshake on the I/O thread before any frame flows.
 *
 * <p>Threads: reading and the handshake happen on the I/O thread; writing on whoever holds the
 * connection's {@code writing} flag ({@code SSLEngine} allows one wrap and one unwrap at a time,
 * concurrently). Delegated tasks run inline (they are short: certificate checks, key agreement).
 */
final class TlsLayer {
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final SSLEngine engine;
    private ByteBuffer netIn; // I/O thread: ciphertext read, not yet decrypted (write mode)
    private ByteBuffer appIn; // I/O thread: plaintext decrypted, not yet delivered (write mode)
    private ByteBuffer netOut; // writer: ciphertext not yet written (write mode)
    private volatile boolean handshaking = true;
    /** The engine wants to send (a post-handshake message) although no frame is queued. */
    private volatile boolean wantsWrap;

    TlsLayer(SSLEngine engine) throws SSLException {
        this.engine = engine;
        int packet = engine.getSession().getPacketBufferSize();
        this.netIn = ByteBuffer.allocate(packet);
        this.appIn = ByteBuffer.allocate(engine.getSession().getApplicationBufferSize());
        this.netOut = ByteBuffer.allocate(packet);
        engine.beginHandshake();
    }

    boolean handshaking() {
        return handshaking;
    }

    boolean wantsWrap() {
        return wantsWrap;
    }

    /**
     * Advances the handshake as far as the socket allows (I/O thread). Returns true once it
     * finished; false while it waits for the peer or for the socket to drain ({@code needsWrite[0]}
     * set then). Throws on a failed handshake (bad certificate, protocol mismatch) or a closed peer.
     */
    boolean handshake(SocketChannel channel, boolean[] needsWrite) throws IOException {
        needsWrite[0] = false;
        while (true) {
            if (!flushNetOut(channel)) {
                needsWrite[0] = true;
                return false;
            }
            HandshakeStatus status = engine.getHandshakeStatus();
            switch (status) {
                case NEED_WRAP -> {
                    SSLEngineResult result = engine.wrap(EMPTY, netOut);
                    if (result.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                        netOut = grow(netOut, engine.getSession().getPacketBufferSize());
                    } else if (result.getStatus() == SSLEngineResult.Status.CLOSED && netOut.position() == 0) {
                        throw new SSLException("the TLS engine closed during the handshake");
                    }
                }
                case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                    if (!unwrapOnce(channel)) {
                        return false; // waiting for the peer
                    }
                }
                case NEED_TASK -> runTasks();
                default -> { // FINISHED or NOT_HANDSHAKING
                    if (!flushNetOut(channel)) {
                        needsWrite[0] = true;
                        return false;
                    }
                    handshaking = false;
                    return true;
                }
            }
        }
    }

    /** One unwrap step, reading from the socket if needed; false if no progress is possible now. */
    private boolean unwrapOnce(SocketChannel channel) throws IOException {
        netIn.flip();
        SSLEngineResult result;
        try {
            result = engine.unwrap(netIn, appIn);
        } finally {
            netIn.compact();
        }
        switch (result.getStatus()) {
            case BUFFER_UNDERFLOW -> {
                if (netIn.position() == netIn.capacity()) {
                    netIn = grow(netIn, engine.getSession().getPacketBufferSize());
                }
                int read = channel.read(netIn);
                if (read < 0) {
                    throw new java.io.EOFException("the peer closed the connection during TLS");
                }
                return read > 0;
            }
            case BUFFER_OVERFLOW -> {
                appIn = grow(appIn, engine.getSession().getApplicationBufferSize());
                return true;
            }
            case CLOSED -> throw new java.io.EOFException("the peer closed the TLS session");
            default -> {
                if (result.getHandshakeStatus() == HandshakeStatus.NEED_TASK) {
                    runTasks();
                }
                return true;
            }
        }
    }

    /**
     * Delivers decrypted bytes into {@code dst} (I/O thread): the count, 0 if none are available
     * now, -1 at the end of the stream. Sets {@link #wantsWrap()} when the engine must answer.
     */
    int read(SocketChannel channel, ByteBuffer dst) throws IOException {
        while (true) {
            if (appIn.position() > 0) {
                appIn.flip();
                int n = Math.min(appIn.remaining(), dst.remaining());
                dst.put(dst.position(), appIn, appIn.position(), n);
                dst.position(dst.position() + n);
                appIn.position(appIn.position() + n);
                appIn.compact();
                return n;
            }
            int before = netIn.position();
            try {
                if (!unwrapOnce(channel)) {
                    return 0;
                }
            } catch (java.io.EOFException closed) {
                return -1;
            }
            if (engine.getHandshakeStatus() == HandshakeStatus.NEED_WRAP) {
                wantsWrap = true;
                return 0;
            }
            if (appIn.position() == 0 && netIn.position() == before && before == 0) {
                return 0; // nothing consumed, nothing buffered
            }
        }
    }

    /**
     * Encrypts as much of {@code frame} as the socket takes now (writer). Returns the plaintext
     * bytes consumed; {@code complete[0]} is false if the socket filled (call again later).
     */
    long write(java.nio.channels.WritableByteChannel channel, ByteBuffer frame, boolean[] complete) throws IOException {
        long consumed = 0;
        complete[0] = false;
        if (!flushNetOut(channel)) {
            return 0;
        }
        if (wantsWrap) {
            wantsWrap = false;
            engine.wrap(EMPTY, netOut);
            if (!flushNetOut(channel)) {
                return 0;
            }
        }
        while (frame.hasRemaining()) {
            SSLEngineResult result = engine.wrap(frame, netOut);
            consumed += result.bytesConsumed();
            if (result.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                netOut = grow(netOut, engine.getSession().getPacketBufferSize());
                continue;
            }
            if (result.getStatus() == SSLEngineResult.Status.CLOSED) {
                throw new SSLException("the TLS session is closed");
            }
            if (!flushNetOut(channel)) {
                return consumed;
            }
        }
        complete[0] = true;
        return consumed;
    }

    /** Writes pending ciphertext; true if none is left. */
    boolean flushNetOut(java.nio.channels.WritableByteChannel channel) throws IOException {
        if (netOut.position() == 0) {
            return true;
        }
        netOut.flip();
        try {
            channel.write(netOut);
            return !netOut.hasRemaining();
        } finally {
            netOut.compact();
        }
    }

    private void runTasks() {
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null) {
            task.run();
        }
    }

    private static ByteBuffer grow(ByteBuffer buffer, int atLeast) {
        ByteBuffer bigger = ByteBuffer.allocate(Math.max(atLeast, buffer.capacity() * 2));
        buffer.flip();
        return bigger.put(buffer);
    }
}
