package dev.ortho.hal.remote.internal.transport;

import dev.ortho.base.StatusException;

/**
 * What a connection's parts ({@link FrameReceiver}, {@link OutboundQueue}) need of the connection
 * that owns them: whether it closed, closing it, and the hand-offs a receiver may ask for. Both
 * {@link TcpConnection} (selector) and {@link BlockingTcpConnection} (blocking reads) provide one.
 */
interface ConnectionLink {
    /** Whether the connection closed (any thread). */
    boolean closed();

    /** Closes the connection with {@code reason} (idempotent; any thread). */
    void close(StatusException reason);

    /** An UNAVAILABLE status naming the connection's peer and {@code why}. */
    StatusException unavailable(String why);

    /**
     * Bytes were already received (decrypted, or frames left after a per-call cap) while the
     * socket may be drained: have them parsed soon, as no readiness would come for them. A
     * connection whose readers loop until nothing is left unparsed does nothing.
     */
    void readOnLoopSoon();

    /** TLS: the engine must write (a key update, a close) before it can read on. */
    void flushFromLoop();
}
