package dev.ortho.hal.remote.internal.client;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceInfo;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.Driver;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.MemoryHeap;
import dev.ortho.hal.remote.ServerOptions;
import dev.ortho.hal.remote.ShmWorkerLauncher;
import dev.ortho.hal.remote.internal.protocol.Challenge;
import dev.ortho.hal.remote.internal.protocol.FrameReader;
import dev.ortho.base.Timeout;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.remote.internal.shm.Doorbell;
import dev.ortho.hal.remote.internal.shm.MailboxTransport;
import dev.ortho.hal.remote.internal.shm.ShmPools;
import dev.ortho.hal.remote.internal.shm.WorkerPool;
import dev.ortho.hal.remote.internal.transport.BlockingSocket;
import dev.ortho.hal.remote.internal.transport.BlockingSockets;
import dev.ortho.hal.remote.internal.transport.BlockingTcpConnection;
import dev.ortho.hal.remote.internal.transport.IoLoop;
import dev.ortho.hal.remote.internal.transport.TcpConnection;
import dev.ortho.hal.remote.internal.transport.TlsContexts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * The {@code remote} driver: creates a {@link RemoteDevice} per device URI
 * {@code remote://HOST:PORT?token_file=PATH&deadline_ms=N&connect_timeout_ms=N} (path defaults
 * to {@code 127.0.0.1:7640}). The token is the contents of {@code token_file}, else the
 * environment variable {@code ORTHO_REMOTE_TOKEN}. {@code deadline_ms} (default 5000) is how long
 * the server may stay silent before the device fails with UNAVAILABLE.
 *
 * <p>TLS: {@code tls=1} encrypts the connection with the JDK's {@code SSLEngine} and checks that
 * the server's certificate names the host of the URI; {@code trust=PEM} names the certificates
 * to trust (a self-signed server certificate, or its CA; default: the JDK's trusted CAs), and
 * {@code cert=PKCS12&cert_password_file=PATH} the client's own certificate and key for a server
 * that requires one.
 *
 * <p>Receiving over plain TCP: {@code tcp_reader=blocking} (the default) has a platform thread
 * that waits for the server block in the socket's {@code read} itself
 * ({@link BlockingTcpConnection}: one system call per receive, as a blocking socket; a reader
 * thread per device reads while no such thread waits, and receives for virtual threads, which
 * never block in the socket). No interrupt closes that socket: where native access is enabled
 * (Linux) the transport opens it and drives it through the C library (no copies), else it is a
 * plain {@code java.net.Socket} read and written through its streams (bulk data copied twice
 * each way). An interrupted or timed-out wait ends with ABORTED or DEADLINE_EXCEEDED (the reader
 * thread asks the server for a frame, a ping, which ends the blocked read) and the connection
 * serves on. {@code tcp_reader=selector} waits in a selector instead ({@link TcpConnection}: an
 * {@code epoll_wait} and a {@code read} per receive, a round trip ~10 % slower; a deadline or an
 * interrupt ends its wait without the server's help). TLS connections always use the selector.
 *
 * <p>Shared memory instead of TCP:
 * {@code remote://shm?supplier=CLASS&mode=process|thread&workers=N&mailbox_bytes=N} hands the
 * device to an idle worker of a pre-spawned {@link WorkerPool} (a child JVM in PROCESS mode, the
 * default, or an in-process worker in THREAD mode) that serves the device {@code CLASS} (a public
 * {@code Supplier<Device>}) supplies; the pool's random token replaces {@code token_file}. A
 * device waits {@code deadline_ms} for a busy worker, but up to {@code start_timeout_ms}
 * (default 60000) while workers are still starting. {@code worker_cpus=LIST} ({@code 1},
 * {@code 2-3,6}: CPUs 0 to 63) keeps each worker's pump on those CPUs where the worker can pin
 * threads (Linux with native access); with the client's waiting threads kept off them, the two
 * spinning sides never share a CPU.
 * Instead of {@code supplier=CLASS}, {@code device=URI} (PROCESS mode) has the child create the
 * device by URI through its own driver registry; it needs a host that starts such children (a
 * {@link dev.ortho.hal.remote.ShmWorkerLauncher}, e.g. {@code ortho.jar}).
 *
 * <p>It cannot list devices without connecting, so {@link #queryAvailableDevices()} is empty.
 * Each device has its own connection and I/O (or pump) thread. Thread-safe.
 */
public final class RemoteDriver implements Driver {
    /** The driver name (URI scheme). */
    public static final String NAME = "remote";
    public static final String DESCRIPTION = "Remote HAL device served by 'ortho serve-device' "
            + "(remote://HOST:PORT?token_file=PATH)";
    public static final DriverInfo INFO = new DriverInfo(NAME, DESCRIPTION);
    /** Environment variable holding the token when the URI has no token_file. */
    public static final String TOKEN_ENV = "ORTHO_REMOTE_TOKEN";
    private static final Set<String> PARAMS = Set.of("token_file", "deadline_ms", "connect_timeout_ms", "mode",
            "supplier", "device", "workers", "mailbox_bytes", "start_timeout_ms", "tls", "trust", "cert",
            "cert_password_file", "tcp_reader", "worker_cpus");
    /** The device path that selects the shared-memory transport. */
    public static final String SHM_PATH = "shm";

    private final Function<String, String> environment;
    private final ShmPools pools;
    private final boolean ownsPools;
    private volatile boolean closed;

    /**
     * A driver with its own worker pools (closed with the driver).
     *
     * @param environment looks up environment variables ({@code System::getenv} in production)
     */
    public RemoteDriver(Function<String, String> environment) {
        this(environment, new ShmPools(() -> null), true);
    }

    /** A driver using a factory's long-lived worker pools. */
    RemoteDriver(Function<String, String> environment, ShmPools pools, boolean ownsPools) {
        this.environment = environment;
        this.pools = pools;
        this.ownsPools = ownsPools;
    }

    @Override
    public DriverInfo info() {
        return INFO;
    }

    @Override
    public List<DeviceInfo> queryAvailableDevices() {
        if (closed) {
            throw new StatusException(StatusCode.UNAVAILABLE, "driver '" + NAME + "' was closed");
        }
        return List.of();
    }

    @Override
    public Device createDevice(DeviceUri uri) {
        if (closed) {
            throw new StatusException(StatusCode.UNAVAILABLE, "driver '" + NAME + "' was closed");
        }
        for (String key : uri.params().keySet()) {
            if (!PARAMS.contains(key)) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "device URI '" + uri + "' has unknown parameter '"
                        + key + "' (known: " + PARAMS + ")");
            }
        }
        long deadlineNanos = TimeUnit.MILLISECONDS.toNanos(millis(uri, "deadline_ms", 5000));
        Challenge.load();
        if (uri.path().equals(SHM_PATH)) {
            return createShmDevice(uri, deadlineNanos);
        }
        InetSocketAddress address = address(uri);
        int connectTimeout = (int) millis(uri, "connect_timeout_ms", 5000);
        byte[] token = token(uri);
        String peer = address.getHostString() + ":" + address.getPort();
        SSLEngine tls = tlsEngine(uri, address);
        String reader = uri.param("tcp_reader", "blocking");
        if (!reader.equals("blocking") && !reader.equals("selector")) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "device URI '" + uri + "' parameter tcp_reader='"
                    + reader + "' is neither 'blocking' nor 'selector'");
        }
        boolean blockingReader = tls == null && reader.equals("blocking");
        RemoteConnection connection = new RemoteConnection(peer, deadlineNanos);
        // an Error on the client's I/O thread fails the device at once instead of leaving waiters hanging
        IoLoop loop = new IoLoop(deadlineNanos / 8, () -> connection.tick(System.nanoTime()),
                error -> connection.onClosed(new StatusException(StatusCode.UNAVAILABLE, "the I/O thread of the "
                        + "connection to " + peer + " stopped by " + error)));
        connection.afterClose(loop::close);
        try {
            if (blockingReader) {
                BlockingSocket socket;
                try {
                    socket = BlockingSockets.connect(address, connectTimeout);
                } catch (IOException e) {
                    throw cannotConnect(peer, e);
                }
                BlockingTcpConnection transport = new BlockingTcpConnection(loop, socket, Protocol.DEFAULT_MAX_FRAME_BYTES,
                        peer, connection::askForFrame, deadlineNanos);
                connection.attach(transport);
                transport.start(connection);
            } else {
                SocketChannel channel;
                try {
                    channel = SocketChannel.open();
                    try {
                        channel.socket().connect(address, connectTimeout);
                    } catch (IOException e) {
                        channel.close();
                        throw e;
                    }
                } catch (IOException e) {
                    throw cannotConnect(peer, e);
                }
                TcpConnection transport;
                try {
                    transport = new TcpConnection(loop, channel, Protocol.DEFAULT_MAX_FRAME_BYTES,
                            Protocol.DEFAULT_MAX_FRAME_BYTES, peer, tls);
                } catch (IOException e) {
                    channel.close();
                    throw e;
                }
                connection.attach(transport);
                transport.start(connection);
            }
        } catch (IOException e) {
            loop.close();
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot set up connection to " + peer + ": "
                    + e.getMessage());
        } catch (RuntimeException e) {
            loop.close();
            throw e;
        }
        return handshake(connection, token, peer);
    }

    /**
     * {@code remote://shm?supplier=CLASS|device=URI&mode=process|thread&workers=N&mailbox_bytes=N&worker_cpus=LIST}:
     * a device served by an idle worker of a pre-spawned pool over a shared-memory mailbox; with
     * {@code worker_cpus} (e.g. {@code 1} or {@code 2-3}) each worker's pump keeps to those CPUs.
     */
    private Device createShmDevice(DeviceUri uri, long deadlineNanos) {
        String supplier = uri.param("supplier", "");
        String device = uri.param("device", "");
        if (supplier.isEmpty() == device.isEmpty()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "device URI '" + uri + "' needs exactly one of "
                    + "supplier=CLASS (a Supplier<Device> the worker instantiates) or device=URI (the device the "
                    + "worker creates)");
        }
        String modeText = uri.param("mode", "process");
        WorkerPool.Mode mode = switch (modeText) {
            case "process" -> WorkerPool.Mode.PROCESS;
            case "thread" -> WorkerPool.Mode.THREAD;
            default -> throw new StatusException(StatusCode.INVALID_ARGUMENT, "device URI '" + uri + "' mode '"
                    + modeText + "' is not 'process' or 'thread'");
        };
        int workers = (int) bounded(uri, "workers", 1, MAX_WORKERS, "number of workers");
        long mailboxBytes = bounded(uri, "mailbox_bytes", 1 << 20, MAX_MAILBOX_BYTES, "number of bytes");
        long workerCpus = 0;
        String cpus = uri.param("worker_cpus", "");
        if (!cpus.isEmpty()) {
            try {
                workerCpus = WorkerPool.cpuMask(cpus);
            } catch (IllegalArgumentException e) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "device URI '" + uri + "' parameter worker_cpus: "
                        + e.getMessage());
            }
        }
        WorkerPool pool;
        if (device.isEmpty()) {
            pool = pools.pool(mode, supplier, WorkerPool.PLAIN_JAVA, workers, mailboxBytes, workerCpus);
        } else {
            ShmWorkerLauncher launcher = pools.hostLauncher();
            if (mode != WorkerPool.Mode.PROCESS || launcher == null) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "device URI '" + uri + "': device=" + device
                        + (launcher == null ? " needs a host that starts worker JVMs with a driver registry (ortho.jar);"
                                + " in plain Java use supplier=CLASS" : " needs mode=process"));
            }
            pool = pools.pool(mode, device, launcher, workers, mailboxBytes, workerCpus);
        }
        long startNanos = TimeUnit.MILLISECONDS.toNanos(millis(uri, "start_timeout_ms", 60_000));
        WorkerPool.Worker worker = pool.pickIdle(Timeout.ofNanos(deadlineNanos), Timeout.ofNanos(startNanos));
        String peer = "shm " + worker;
        RemoteConnection connection = new RemoteConnection(peer, deadlineNanos);
        Doorbell doorbell;
        try {
            doorbell = worker.doorbell();
        } catch (StatusException e) {
            pool.release(worker); // broken: replaced by a fresh spawn
            throw e;
        }
        MailboxTransport transport = new MailboxTransport(worker.mailbox(), doorbell, true, worker::isAlive, peer,
                Protocol.DEFAULT_MAX_FRAME_BYTES, () -> connection.tick(System.nanoTime()));
        connection.attach(transport);
        connection.afterClose(() -> pool.release(worker));
        if (worker.process() != null) {
            worker.process().onExit().thenRun(() -> transport.close(new StatusException(StatusCode.UNAVAILABLE,
                    "worker process " + worker.process().pid() + " exited with code " + worker.process().exitValue())));
        }
        transport.start(connection);
        return handshake(connection, worker.token(), peer);
    }

    private static StatusException cannotConnect(String peer, IOException e) {
        return new StatusException(StatusCode.UNAVAILABLE, "cannot connect to remote device " + peer + ": "
                + (e.getMessage() == null ? e.toString() : e.getMessage()));
    }

    private static Device handshake(RemoteConnection connection, byte[] token, String peer) {
        try {
            FrameReader challenge = connection.call(connection.request(Protocol.HELLO).putI32(Protocol.MAGIC)
                    .putI32(Protocol.VERSION), "handshake");
            ByteBuffer nonceBytes = challenge.bytes("nonce");
            challenge.end();
            if (nonceBytes.remaining() != Protocol.NONCE_BYTES) {
                throw new StatusException(StatusCode.DATA_LOSS, "handshake nonce of " + nonceBytes.remaining()
                        + " bytes is not " + Protocol.NONCE_BYTES + " bytes");
            }
            byte[] nonce = new byte[Protocol.NONCE_BYTES];
            nonceBytes.get(nonce);
            // the token never travels: only its HMAC of this connection's nonce
            byte[] proof = token.length == 0 ? new byte[0] : Challenge.prove(token, nonce);
            FrameReader welcome = connection.call(connection.request(Protocol.AUTH).putU8(token.length == 0 ? 0 : 1)
                    .putBytes(proof, 0, proof.length), "authentication");
            connection.authenticated();
            long id = welcome.i64("device id");
            welcome.string("device path");
            String name = welcome.string("device name");
            long capabilities = welcome.i64("capabilities");
            int queueCount = welcome.i32("queue count");
            int scopes = welcome.u8("semaphore scopes");
            int machine = welcome.u8("machine index");
            if (queueCount < 1 || queueCount > 64) {
                throw new StatusException(StatusCode.DATA_LOSS, "handshake queue count " + queueCount
                        + " is outside [1, 64]");
            }
            int heapCount = welcome.count("heaps");
            List<MemoryHeap> heaps = new ArrayList<>(heapCount);
            for (int i = 0; i < heapCount; i++) {
                heaps.add(new MemoryHeap(welcome.i32("heap type"), welcome.i32("heap usage"),
                        welcome.i64("heap max allocation"), welcome.i64("heap alignment")));
            }
            welcome.end();
            Runnable unclaim = claimMachine(machine, peer);
            return new RemoteDevice(connection, new DeviceInfo(id, peer, name + " at " + peer), capabilities,
                    queueCount, scopes, machine, heaps, unclaim);
        } catch (StatusException e) {
            connection.close(e);
            throw e.annotate("while connecting to remote device " + peer);
        }
    }

    /** Servers with an assigned machine index that devices of this process are connected to: index → peer, devices. */
    private static final java.util.Map<Integer, java.util.Map.Entry<String, Integer>> MACHINES = new java.util.HashMap<>();

    /**
     * Records that a device of this process talks to {@code peer}, whose queue axes carry
     * machine index {@code machine}; returns what undoes it when the device closes. Two servers
     * announcing one assigned index would hand out the same axes (their frontiers could prove
     * one server's work done by the other's), so the second is refused.
     *
     * @throws StatusException FAILED_PRECONDITION naming both servers and the index
     */
    static Runnable claimMachine(int machine, String peer) {
        if (machine == 0) {
            return () -> { };
        }
        synchronized (MACHINES) {
            java.util.Map.Entry<String, Integer> holder = MACHINES.get(machine);
            if (holder != null && !holder.getKey().equals(peer)) {
                throw new StatusException(StatusCode.FAILED_PRECONDITION, "server " + peer + " announces machine index "
                        + machine + ", which server " + holder.getKey() + " (connected) announces too; give each "
                        + "server its own machine index, or the frontiers they report name the same queue axes");
            }
            MACHINES.put(machine, java.util.Map.entry(peer, holder == null ? 1 : holder.getValue() + 1));
        }
        return () -> {
            synchronized (MACHINES) {
                java.util.Map.Entry<String, Integer> holder = MACHINES.get(machine);
                if (holder != null && holder.getKey().equals(peer)) {
                    if (holder.getValue() <= 1) {
                        MACHINES.remove(machine);
                    } else {
                        MACHINES.put(machine, java.util.Map.entry(peer, holder.getValue() - 1));
                    }
                }
            }
        };
    }

    private static InetSocketAddress address(DeviceUri uri) {
        String path = uri.path().isEmpty() ? "127.0.0.1:" + ServerOptions.DEFAULT_PORT : uri.path();
        int colon = path.lastIndexOf(':');
        String host = colon < 0 ? path : path.substring(0, colon);
        int port = ServerOptions.DEFAULT_PORT;
        if (colon >= 0) {
            try {
                port = Integer.parseInt(path.substring(colon + 1));
            } catch (NumberFormatException e) {
                port = -1;
            }
        }
        if (host.isEmpty() || port <= 0 || port > 65535) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "device URI '" + uri + "' path '" + path
                    + "' is not HOST:PORT with a port in [1, 65535]");
        }
        return new InetSocketAddress(host, port);
    }

    /** Largest {@code workers=} of a shared-memory pool: each worker is a JVM (or a thread). */
    static final int MAX_WORKERS = 64;
    /** Largest {@code mailbox_bytes=}: one block of the mailbox, of which there are two per worker. */
    static final long MAX_MAILBOX_BYTES = 1L << 30;

    private static long millis(DeviceUri uri, String key, long defaultValue) {
        return bounded(uri, key, defaultValue, Integer.MAX_VALUE, "number of milliseconds");
    }

    /**
     * Parameter {@code key} as a number in {@code [1, max]} ({@code defaultValue} if absent).
     *
     * @throws StatusException INVALID_ARGUMENT naming the parameter, its value, what it counts and the range
     */
    private static long bounded(DeviceUri uri, String key, long defaultValue, long max, String what) {
        String text = uri.param(key, null);
        if (text == null) {
            return defaultValue;
        }
        try {
            long value = Long.parseLong(text);
            if (value > 0 && value <= max) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT, "device URI '" + uri + "' parameter " + key + "='"
                + text + "' is not a " + what + " in [1, " + max + "]");
    }

    /** A client-mode engine checking the server's certificate against the URI's host, or null without {@code tls=1}. */
    private static SSLEngine tlsEngine(DeviceUri uri, InetSocketAddress address) {
        String tls = uri.param("tls", "0");
        if (!tls.equals("1") && !tls.equals("true")) {
            if (!tls.equals("0") && !tls.equals("false")) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "device URI '" + uri + "' parameter tls='" + tls
                        + "' is not 1 or 0");
            }
            for (String key : List.of("trust", "cert", "cert_password_file")) {
                if (uri.param(key, null) != null) {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT, "device URI '" + uri + "' parameter "
                            + key + " needs tls=1");
                }
            }
            return null;
        }
        String trust = uri.param("trust", null);
        String cert = uri.param("cert", null);
        String certPassword = uri.param("cert_password_file", null);
        if ((cert == null) != (certPassword == null)) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "device URI '" + uri
                    + "' needs cert= and cert_password_file= together");
        }
        SSLContext context = TlsContexts.context(cert == null ? null : Path.of(cert),
                certPassword == null ? null : TlsContexts.password(Path.of(certPassword)),
                trust == null ? null : Path.of(trust));
        SSLEngine engine = context.createSSLEngine(address.getHostString(), address.getPort());
        engine.setUseClientMode(true);
        SSLParameters parameters = engine.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS"); // the certificate must name the host
        engine.setSSLParameters(parameters);
        return engine;
    }

    private byte[] token(DeviceUri uri) {
        String file = uri.param("token_file", null);
        if (file != null) {
            return ServerOptions.readToken(Path.of(file));
        }
        String value = environment.apply(TOKEN_ENV);
        return value == null ? new byte[0] : value.strip().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        closed = true;
        if (ownsPools) {
            pools.close();
        }
    }
}
