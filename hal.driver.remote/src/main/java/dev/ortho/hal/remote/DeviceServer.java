package dev.ortho.hal.remote;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.remote.internal.server.MemoryBudget;
import dev.ortho.hal.remote.internal.server.ServerSession;
import dev.ortho.hal.remote.internal.transport.IoLoop;
import dev.ortho.hal.remote.internal.transport.TcpConnection;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * queue operations, allocations and executable preparations, all daemons. Thread-safe;
 * {@link #close()} stops everything.
 *
 * <p><b>Hostile peers.</b> Before a peer proves the token it can make the server hold only a
 * connection and a frame of at most {@link Protocol#HANDSHAKE_MAX_FRAME_BYTES} bytes, for at most
 * the handshake timeout; connections beyond {@link ServerOptions#maxConnections()} in total or
 * {@link ServerOptions#maxConnectionsPerAddress()} from one address are closed as soon as they
 * are accepted. Authenticated clients' buffers count against their quota and the server-wide
 * {@link ServerOptions#serverMemoryBytes()}. When accepting fails (for example the process is out
 * of file descriptors) the server stops accepting for a while (100 ms, doubling up to 5 s while
 * it keeps failing) and logs once per pause, instead of spinning.
 *
 * <p><b>Errors.</b> An {@link Error} on any server thread (say {@code OutOfMemoryError}) is
 * logged once and shuts the server down as {@link #close()} does: every client fails with
 * UNAVAILABLE, sockets close, {@link #isRunning()} turns false and {@link #failure()} tells why.
 * It never lingers half-alive.
 */
public final class DeviceServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceServer.class);
    private static final AtomicInteger EXEC_THREADS = new AtomicInteger();
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long ACCEPT_PAUSE_MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long ACCEPT_PAUSE_MAX_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final ServerOptions options;
    private final Supplier<Device> devices;
    private final ServerSocketChannel acceptor;
    private final ExecutorService executor;
    private final Set<ServerSession> sessions = ConcurrentHashMap.newKeySet();
    private final IoLoop loop;
    private final InetSocketAddress address;
    private final MemoryBudget budget;
    /** Open connections per remote address (I/O thread increments; session close decrements). */
    private final Map<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Throwable failure;
    private volatile SelectionKey acceptKey;
    /** Accept back-off (I/O thread only): when accepting resumes, and the current pause. */
    private long acceptResumeNanos;
    private long acceptPauseNanos;
    private long acceptFailures;
    private long refusedConnections;
    /** Sessions closed by a failure inside the server (INTERNAL), which no client should cause. */
    private final java.util.concurrent.atomic.AtomicLong internalFailures =
            new java.util.concurrent.atomic.AtomicLong();

    private DeviceServer(Supplier<Device> devices, ServerOptions options) throws IOException {
        this.options = options;
        this.devices = devices;
        this.budget = new MemoryBudget(options.serverMemoryBytes());
        this.executor = new ThreadPoolExecutor(options.executorThreads(), options.executorThreads(), 30,
                TimeUnit.SECONDS, new LinkedBlockingQueue<>(), runnable -> Thread.ofPlatform().daemon()
                        .name("ortho-remote-exec-" + EXEC_THREADS.incrementAndGet())
                        .uncaughtExceptionHandler((thread, e) -> {
                            if (e instanceof Error error) {
                                fatal(error);
                            }
                        }).unstarted(runnable));
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
        this.loop = new IoLoop(TICK_NANOS, this::tick, this::fatal);
        loop.execute(() -> {
            if (!acceptor.isOpen()) {
                return; // closed before the loop got to it
            }
            try {
                acceptKey = loop.register(acceptor, SelectionKey.OP_ACCEPT, new IoLoop.Handler() {
                    @Override
                    public void onReady(SelectionKey key) throws IOException {
                        accept();
                    }

                    @Override
                    public void onFailure(Exception failure) {
                        acceptFailed(failure);
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
                    + " is not loopback; binding it needs an explicit allowance (--allow_non_loopback), and "
                    + "without TLS (--tls_keystore=) the traffic is not encrypted");
        }
        try {
            return new DeviceServer(devices, options);
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot listen on " + listen + ": " + e.getMessage());
        }
    }

    /** The options this server runs with. */
    public ServerOptions options() {
        return options;
    }

    /** The bound address (with the actual port when port 0 was requested). */
    public InetSocketAddress address() {
        return address;
    }

    /** Connections currently open (authenticated or still in the handshake). */
    public int sessionCount() {
        return sessions.size();
    }

    /** Live buffer bytes of all clients, as counted against {@link ServerOptions#serverMemoryBytes()}. */
    public long memoryBytes() {
        return budget.used();
    }

    /** Whether the server still serves: not closed and not stopped by an {@link Error}. */
    public boolean isRunning() {
        return !closed.get() && loop.isRunning();
    }

    /** The {@link Error} that shut the server down, or null. */
    public Throwable failure() {
        return failure;
    }

    /** Connections closed at once because a connection limit was reached (since start). */
    public long refusedConnections() {
        return refusedConnections;
    }

    private void accept() throws IOException {
        SocketChannel channel;
        while ((channel = acceptor.accept()) != null) {
            acceptPauseNanos = 0; // accepting works again
            InetAddress from = ((InetSocketAddress) channel.getRemoteAddress()).getAddress();
            int[] open = new int[1];
            boolean[] admitted = new boolean[1];
            perAddress.compute(from, (a, n) -> {
                open[0] = n == null ? 0 : n;
                if (sessions.size() >= options.maxConnections() || open[0] >= options.maxConnectionsPerAddress()) {
                    return n;
                }
                admitted[0] = true;
                return open[0] + 1;
            });
            if (!admitted[0]) {
                refuse(channel, from, open[0]);
                continue;
            }
            Runnable leave = () -> perAddress.computeIfPresent(from, (a, n) -> n <= 1 ? null : n - 1);
            String peer = String.valueOf(channel.getRemoteAddress());
            TcpConnection connection;
            try {
                connection = new TcpConnection(loop, channel, Protocol.HANDSHAKE_MAX_FRAME_BYTES,
                        options.maxFrameBytes(), peer, tlsEngine());
            } catch (IOException e) {
                leave.run();
                channel.close();
                throw e;
            }
            ServerSession session = new ServerSession(connection, options, devices, executor, s -> {
                sessions.remove(s);
                leave.run();
                StatusException reason = s.closeReason();
                if (reason != null && reason.code() == StatusCode.INTERNAL) {
                    internalFailures.incrementAndGet();
                    LOG.warn("remote HAL server {}: {} was dropped by a failure inside the server: {}", address, s,
                            reason.toString());
                }
            }, budget);
            sessions.add(session);
            connection.start(session);
        }
    }

    /** A server-mode engine for a new connection, or null without TLS. */
    private javax.net.ssl.SSLEngine tlsEngine() {
        ServerTls tls = options.tls();
        if (tls == null) {
            return null;
        }
        javax.net.ssl.SSLEngine engine = tls.context().createSSLEngine();
        engine.setUseClientMode(false);
        if (tls.requireClientCertificate()) {
            engine.setNeedClientAuth(true);
        }
        return engine;
    }

    private void refuse(SocketChannel channel, InetAddress from, int open) {
        if (refusedConnections++ % 1000 == 0) { // the first, then one line per thousand
            LOG.warn("remote HAL server {} closes new connections: {} open in total (limit {}), {} from {} (limit {}); "
                    + "{} refused so far", address, sessions.size(), options.maxConnections(), open, from,
                    options.maxConnectionsPerAddress(), refusedConnections);
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // refused anyway
        }
    }

    /** Accepting failed (e.g. EMFILE): pause accepting with exponential back-off, logging once per pause. */
    private void acceptFailed(Exception e) {
        acceptFailures++;
        acceptPauseNanos = acceptPauseNanos == 0 ? ACCEPT_PAUSE_MIN_NANOS
                : Math.min(2 * acceptPauseNanos, ACCEPT_PAUSE_MAX_NANOS);
        acceptResumeNanos = System.nanoTime() + acceptPauseNanos;
        SelectionKey key = acceptKey;
        if (key != null && key.isValid()) {
            key.interestOps(0);
        }
        LOG.warn("accepting a remote HAL client on {} failed ({} failures so far): {}; pausing accepting for {} ms",
                address, acceptFailures, e.toString(), TimeUnit.NANOSECONDS.toMillis(acceptPauseNanos));
    }

    /** Sessions closed by a failure inside the server (INTERNAL): a server defect each, for tests. */
    long internalFailures() {
        return internalFailures.get();
    }

    /** Accept failures since start (each one pauses accepting). */
    public long acceptFailures() {
        return acceptFailures;
    }

    private void tick() {
        long now = System.nanoTime();
        SelectionKey key = acceptKey;
        if (key != null && key.isValid() && key.interestOps() == 0 && now - acceptResumeNanos >= 0) {
            key.interestOps(SelectionKey.OP_ACCEPT);
        }
        for (ServerSession session : sessions) {
            session.tick(now);
        }
    }

    /** An {@link Error} on a server thread: logged once, then the server shuts down. */
    private void fatal(Throwable error) {
        if (failure != null || closed.get()) {
            return;
        }
        failure = error;
        try {
            LOG.error("remote HAL server {} shuts down after {}", address, error.toString());
        } catch (Throwable ignored) {
            // still shut down
        }
        close(); // never blocks, so safe on the failing thread itself
    }

    /**
     * Stops listening, disconnects every client (freeing their resources) and stops the threads.
     * Idempotent; returns without waiting for the threads to exit.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            acceptor.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        Throwable cause = failure;
        StatusException shutdown = new StatusException(StatusCode.UNAVAILABLE, "device server " + address
                + (cause == null ? " shut down" : " shut down after " + cause));
        for (ServerSession session : sessions) {
            try {
                session.close(shutdown);
            } catch (RuntimeException e) {
                LOG.warn("closing {} failed", session, e);
            }
        }
        loop.close();
        executor.shutdown();
    }

    /** Every session's state and the executor's (for a test's hang report). */
    String diagnostics() {
        StringBuilder out = new StringBuilder(toString()).append(": executor ").append(executor);
        for (ServerSession session : sessions) {
            out.append("\n  ").append(session.diagnostics());
        }
        return out.toString();
    }

    @Override
    public String toString() {
        return "remote HAL device server on " + address;
    }
}
