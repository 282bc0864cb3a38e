package dev.ortho.hal.remote.internal.shm;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The cross-process wake-up of a PROCESS-mode {@link Mailbox}: one end of a Unix-domain socket
 * connection between client and worker. A pump that has nothing to do announces it sleeps
 * ({@link Mailbox#soSleeping}), re-checks the mailbox, and blocks in {@link #await}; the peer,
 * after publishing a state the sleeper waits for, {@link #ring}s only when the sleeper flag is
 * set (an eventcount: no lost wake-up, no system call while both sides are busy). The socket also
 * reports the peer's death at once (end of stream). Lives as long as the worker, across
 * sessions; one pump thread uses it at a time, {@link #wakeup} may be called from any thread.
 */
public final class Doorbell implements AutoCloseable {
    private final SocketChannel channel;
    private final Selector selector;
    private final ByteBuffer ring = ByteBuffer.allocateDirect(1);
    private final ByteBuffer drain = ByteBuffer.allocateDirect(64);

    private Doorbell(SocketChannel channel) throws IOException {
        this.channel = channel;
        channel.configureBlocking(false);
        this.selector = Selector.open();
        channel.register(selector, SelectionKey.OP_READ);
    }

    /** The socket path of the mailbox in {@code mailboxFile}. */
    static Path path(Path mailboxFile) {
        return mailboxFile.resolveSibling(mailboxFile.getFileName() + ".bell");
    }

    /** The client side's listening socket, bound before the worker is spawned. */
    static ServerSocketChannel listen(Path mailboxFile) {
        try {
            Files.deleteIfExists(path(mailboxFile));
            ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(path(mailboxFile)), 1);
            return server;
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot bind the doorbell of '" + mailboxFile + "': "
                    + e.getMessage());
        }
    }

    /** The client side: accepts the worker's connection (it connects before it is ready). */
    static Doorbell accept(ServerSocketChannel server, Path mailboxFile) {
        try (server) {
            server.configureBlocking(true);
            SocketChannel channel = server.accept();
            Files.deleteIfExists(path(mailboxFile));
            return new Doorbell(channel);
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot accept the doorbell of '" + mailboxFile + "': "
                    + e.getMessage());
        }
    }

    /** The worker side: connects to the client's doorbell of {@code mailboxFile}. */
    static Doorbell connect(Path mailboxFile) {
        try {
            SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
            channel.connect(UnixDomainSocketAddress.of(path(mailboxFile)));
            return new Doorbell(channel);
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot connect to the doorbell of '" + mailboxFile
                    + "': " + e.getMessage());
        }
    }

    /** Wakes the peer's pump (one byte; a full socket buffer already means a pending wake-up). */
    void ring() {
        try {
            ring.clear();
            channel.write(ring);
        } catch (IOException e) {
            // the peer is gone: its end of stream reaches our own await
        }
    }

    /**
     * Blocks until the peer rings, {@link #wakeup} is called or {@code nanos} pass, then consumes
     * the rings.
     *
     * @throws StatusException UNAVAILABLE if the peer closed its end (its process died)
     */
    void await(long nanos, String peer) {
        try {
            selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos)));
            selector.selectedKeys().clear();
            int n;
            do {
                drain.clear();
                n = channel.read(drain);
            } while (n > 0);
            if (n < 0) {
                throw new StatusException(StatusCode.UNAVAILABLE, "mailbox to " + peer + ": the peer process is gone");
            }
        } catch (IOException | java.nio.channels.ClosedSelectorException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "mailbox to " + peer + ": doorbell failed: " + e);
        }
    }

    /** Ends a local {@link #await} at once (a frame to send, or a close). Any thread. */
    void wakeup() {
        selector.wakeup();
    }

    @Override
    public void close() {
        try {
            selector.close();
        } catch (IOException e) {
            // nothing more to release
        }
        try {
            channel.close();
        } catch (IOException e) {
            // nothing more to release
        }
    }
}
