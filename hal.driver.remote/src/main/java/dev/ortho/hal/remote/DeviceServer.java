package dev.ortho.hal.remote;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.remote.internal.server.ServerSession;
import dev.ortho.hal.remote.internal.transport.IoLoop;
import dev.ortho.hal.remote.internal.transport.TcpConnection;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a HAL device to remote clients over TCP: what {@code ortho serve-device} runs.
 *
 * <p>Each authenticated connection gets a fresh device from the supplier, so clients are
 * isolated: their handles name only their own resources, quotas apply per client, and when a
 * client disconnects (or misbehaves: a malformed, truncated or oversized frame, a wrong token)
 * its resources are released and its device closed while the others keep being served.
 *
 * <p>Threads: one I/O thread ({@code ortho-remote-io-N}) for every connection and
 * {@link ServerOptions#executorThreads()} threads ({@code ortho-remote-exec-N}) that run ready
 * queue operations, all daemons. Thread-safe; {@link #close()} stops everything.
 */
public final class DeviceServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceServer.class);
    private static final AtomicInteger EXEC_THREADS = new AtomicInteger();
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final ServerOptions options;
    private final Supplier<Device> devices;
    private final ServerSocketChannel acceptor;
    private final ExecutorService executor;
    private final Set<ServerSession> sessions = ConcurrentHashMap.newKeySet();
    private final IoLoop loop;
    private final InetSocketAddress address;

    private DeviceServer(Supplier<Device> devices, ServerOptions options) throws IOException {
        this.options = options;
        this.devices = devices;
        this.executor = new ThreadPoolExecutor(options.executorThreads(), options.executorThreads(), 30,
                TimeUnit.SECONDS, new LinkedBlockingQueue<>(), runnable -> Thread.ofPlatform().daemon()
                        .name("ortho-remote-exec-" + EXEC_THREADS.incrementAndGet()).unstarted(runnable));
        this.acceptor = ServerSocketChannel.open();
        try {
            acceptor.bind(options.listen());
            acceptor.configureBlocking(false);
        } catch (IOException e) {
            acceptor.close();
            executor.shutdown();
            throw e;
        }
        this.address = (InetSocketAddress) acceptor.getLocalAddress();
        this.loop = new IoLoop(TICK_NANOS, this::tick);
        loop.execute(() -> {
            if (!acceptor.isOpen()) {
                return; // closed before the loop got to it
            }
            try {
                loop.register(acceptor, SelectionKey.OP_ACCEPT, new IoLoop.Handler() {
                    @Override
                    public void onReady(SelectionKey key) throws IOException {
                        accept();
                    }

                    @Override
                    public void onFailure(Exception failure) {
                        LOG.warn("accepting a remote HAL client failed: {}", failure.toString());
                    }
                });
            } catch (IOException e) {
                LOG.error("remote HAL server cannot accept on {}", address, e);
            }
        });
    }

    /**
     * Binds {@code options.listen()} and starts serving; {@code devices} is called once per
     * authenticated client (on the I/O thread) and the server closes what it returns.
     *
     * @throws StatusException PERMISSION_DENIED for a non-loopback address without
     *     {@link ServerOptions#allowNonLoopback()}; UNAVAILABLE naming the address if binding fails
     */
    public static DeviceServer start(Supplier<Device> devices, ServerOptions options) {
        InetSocketAddress listen = options.listen();
        if (listen.isUnresolved() || (!listen.getAddress().isLoopbackAddress() && !options.allowNonLoopback())) {
            throw new StatusException(StatusCode.PERMISSION_DENIED, "listen address " + listen
                    + " is not loopback; the remote HAL is not encrypted, so binding it needs an explicit "
                    + "allowance (--allow_non_loopback)");
        }
        try {
            return new DeviceServer(devices, options);
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot listen on " + listen + ": " + e.getMessage());
        }
    }

    /** The bound address (with the actual port when port 0 was requested). */
    public InetSocketAddress address() {
        return address;
    }

    /** Connections currently open (authenticated or still in the handshake). */
    public int sessionCount() {
        return sessions.size();
    }

    private void accept() throws IOException {
        SocketChannel channel;
        while ((channel = acceptor.accept()) != null) {
            String peer = String.valueOf(channel.getRemoteAddress());
            TcpConnection connection = new TcpConnection(loop, channel, options.maxFrameBytes(), peer);
            ServerSession session = new ServerSession(connection, options, devices, executor, sessions::remove);
            sessions.add(session);
            connection.start(session);
        }
    }

    private void tick() {
        long now = System.nanoTime();
        for (ServerSession session : sessions) {
            session.tick(now);
        }
    }

    /** Stops listening, disconnects every client (freeing their resources) and stops the threads. */
    @Override
    public void close() {
        try {
            acceptor.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        StatusException shutdown = new StatusException(StatusCode.UNAVAILABLE, "device server " + address
                + " shut down");
        for (ServerSession session : sessions) {
            session.close(shutdown);
        }
        loop.close();
        executor.shutdown();
    }

    @Override
    public String toString() {
        return "remote HAL device server on " + address;
    }
}
