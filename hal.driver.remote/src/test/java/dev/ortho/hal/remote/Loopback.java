package dev.ortho.hal.remote;

import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import dev.ortho.hal.remote.internal.client.RemoteDriver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.UnaryOperator;

/**
 * A device server on an ephemeral loopback port serving {@code local-sync} devices created
 * through a {@link DriverRegistry}, and remote devices connected to it. The served devices are
 * kept so tests can check what the server freed.
 */
public final class Loopback implements AutoCloseable {
    public static final String TOKEN = "loopback-secret-0123456789";
    private static Loopback shared;

    public final Path tokenFile;
    public final DeviceServer server;
    public final Queue<Device> served = new ConcurrentLinkedQueue<>();
    /** The local-task factory of {@link #startLocalTask} (its live devices), else null. */
    public dev.ortho.hal.cpu.CpuDriverFactory cpu;

    private Loopback(UnaryOperator<ServerOptions> configure) {
        this(configure, localSyncRegistry(), "local-sync://");
    }

    private Loopback(UnaryOperator<ServerOptions> configure, DriverRegistry registry, String deviceUri) {
        try {
            tokenFile = Files.createTempFile("ortho-remote-token", ".txt");
            Files.writeString(tokenFile, TOKEN + "\n", StandardCharsets.UTF_8);
            tokenFile.toFile().deleteOnExit();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ServerOptions options = configure.apply(ServerOptions.defaults(TOKEN.getBytes(StandardCharsets.UTF_8))
                .withListen(new InetSocketAddress("127.0.0.1", 0), false));
        server = DeviceServer.start(() -> {
            Device device = registry.createDevice(deviceUri);
            served.add(device);
            return device;
        }, options);
    }

    /** A registry that knows {@code local-sync} with the builtin kernels. */
    public static DriverRegistry localSyncRegistry() {
        DriverRegistry registry = new DriverRegistry();
        registry.register(CpuDrivers.builder().localSyncFactory());
        return registry;
    }

    /**
     * A new server serving {@code local-task} devices (FIFO queues if {@code fifo}) whose queue axes carry machine index
     * {@code machine}, which the server also announces ({@link ServerOptions#machine()}).
     */
    public static Loopback startLocalTask(int machine, boolean fifo, UnaryOperator<ServerOptions> configure) {
        DriverRegistry registry = new DriverRegistry();
        dev.ortho.hal.cpu.CpuDriverFactory factory = CpuDrivers.builder().workerCount(1).fifoQueues(fifo)
                .queueAxes(new dev.ortho.hal.frontier.QueueAxes(machine, machine, 256)).localTaskFactory();
        registry.register(factory);
        Loopback loopback = new Loopback(options -> configure.apply(options.withMachine(machine)), registry,
                "local-task://");
        loopback.cpu = factory;
        return loopback;
    }

    /** A new server with default options. */
    public static Loopback start() {
        return new Loopback(options -> options);
    }

    /** A new server with options adjusted by {@code configure}. */
    public static Loopback start(UnaryOperator<ServerOptions> configure) {
        return new Loopback(configure);
    }

    private static Loopback sharedLocalTask;

    /**
     * One server of (unordered) {@code local-task} devices shared by conformance suites, machine
     * index 200 (never closed): operations with unreached waits are handed to the device.
     */
    public static synchronized Loopback sharedLocalTask() {
        if (sharedLocalTask == null) {
            sharedLocalTask = startLocalTask(200, false, options -> options);
        }
        return sharedLocalTask;
    }

    /** One server shared by the conformance suites (never closed; its threads are daemons). */
    public static synchronized Loopback shared() {
        if (shared == null) {
            shared = start();
        }
        return shared;
    }

    public String uri(String extraParams) {
        return "remote://127.0.0.1:" + server.address().getPort() + "?token_file=" + tokenFile
                + (extraParams.isEmpty() ? "" : "&" + extraParams);
    }

    /** A new remote device connected to this server. */
    public Device connect() {
        return connect("");
    }

    public Device connect(String extraParams) {
        try (RemoteDriver driver = new RemoteDriver(name -> null)) {
            return driver.createDevice(DeviceUri.parse(uri(extraParams)));
        }
    }

    /** The CTS test executable: the builtin kernel library, installed on the server. */
    public static ExecutableParams testExecutable() {
        return new ExecutableParams(JvmStaticFormat.FORMAT, JvmStaticFormat.encode(CpuDrivers.BUILTIN_KERNELS), new int[0]);
    }

    @Override
    public void close() {
        server.close();
    }
}
