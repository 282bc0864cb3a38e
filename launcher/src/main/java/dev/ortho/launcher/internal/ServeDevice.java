package dev.ortho.launcher.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.remote.DeviceServer;
import dev.ortho.hal.remote.ServerOptions;
import dev.ortho.hal.remote.ServerTls;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code ortho serve-device --device=URI --token_file=PATH [--listen=HOST:PORT]
 * [--allow_non_loopback] [--max_memory_bytes=N] [--max_handles=N] [--max_in_flight=N]
 * [--allowed_formats=F,F] [--max_connections=N] [--max_connections_per_address=N]
 * [--max_server_memory_bytes=N] [--tls_keystore=P12 --tls_password_file=PATH [--tls_client_ca=PEM]]
 * [--machine_index=N]}:
 * serves a device (a fresh one per client, created through the
 * driver registry) to {@code remote://} clients until the process is stopped, or until the server
 * stops by itself after an {@link Error} (exit 1). Loopback {@code 127.0.0.1:7640} by default;
 * any other address needs {@code --allow_non_loopback}. {@code --machine_index=N} (0 to 255)
 * is announced to clients and, for {@code local-task} devices, carried in their queue axes (the
 * device URI gets {@code machine_index=N}), so two servers' frontiers never name the same axes.
 * {@code --help} prints every flag with its default (exit 0).
 */
final class ServeDevice implements Cli.Subcommand {
    /** What to do while the server runs; returns when it should stop. */
    interface Lifetime {
        void serve(DeviceServer server);
    }

    private final DriverRegistry drivers;
    private final Lifetime lifetime;

    ServeDevice(DriverRegistry drivers, Lifetime lifetime) {
        this.drivers = drivers;
        this.lifetime = lifetime;
    }

    /** Production lifetime: until the thread is interrupted, the JVM shuts down or the server stops. */
    static void untilStopped(DeviceServer server) {
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "ortho-serve-device-shutdown"));
        while (!Thread.currentThread().isInterrupted() && server.isRunning()) {
            LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
        }
    }

    @Override
    public String summary() {
        return "serve a device to remote:// clients (--device=, --token_file=, --listen=)";
    }

    /** {@code serve-device --help}: every flag, with the defaults of {@link ServerOptions#defaults}. */
    private static String usage() {
        ServerOptions d = ServerOptions.defaults(new byte[] {0});
        return String.join(System.lineSeparator(),
                "ortho serve-device: " + "serve a device to remote:// clients, a fresh device per client, until stopped",
                "  --device=URI                        the device to serve (required), e.g. local-task",
                "  --token_file=PATH                   the shared secret clients prove (required)",
                "  --listen=HOST:PORT                  default " + d.listen().getHostString() + ":" + d.listen().getPort(),
                "  --allow_non_loopback                listen on an address other than loopback",
                "  --max_memory_bytes=N                per client: buffer and other kept bytes (default "
                        + d.maxMemoryBytes() + ")",
                "  --max_handles=N                     per client: live handles (default " + d.maxHandles() + ")",
                "  --max_in_flight=N                   per client: queue operations in flight (default "
                        + d.maxInFlight() + ")",
                "  --allowed_formats=F,F               executable formats clients may load (default "
                        + String.join(",", new java.util.TreeSet<>(d.allowedFormats())) + ")",
                "  --max_connections=N                 connections open at once (default " + d.maxConnections() + ")",
                "  --max_connections_per_address=N     from one address (default " + d.maxConnectionsPerAddress() + ")",
                "  --max_server_memory_bytes=N         buffer bytes of all clients together (default "
                        + d.serverMemoryBytes() + ")",
                "  --tls_keystore=P12 --tls_password_file=PATH [--tls_client_ca=PEM]   TLS (mutual with a client CA)",
                "  --machine_index=N                   0 to 255, announced to clients and carried in local-task queue axes",
                "See README.md, \"Remote devices\".", "");
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) {
        if (args.contains("--help")) { // as the other tools and IREE's: usage on stdout, exit 0
            out.print(usage());
            return Cli.EXIT_OK;
        }
        String device = null;
        String tokenFile = null;
        String listen = "127.0.0.1:" + ServerOptions.DEFAULT_PORT;
        boolean nonLoopback = false;
        long memory = -1;
        int handles = -1;
        int inFlight = -1;
        Set<String> formats = ServerOptions.DEFAULT_FORMATS;
        int connections = -1;
        int connectionsPerAddress = -1;
        long serverMemory = -1;
        String tlsKeystore = null;
        String tlsPassword = null;
        String tlsClientCa = null;
        int machine = -1;
        for (String arg : args) {
            int equals = arg.indexOf('=');
            String flag = equals < 0 ? arg : arg.substring(0, equals);
            String value = equals < 0 ? null : arg.substring(equals + 1);
            switch (flag) {
                case "--device" -> device = required(flag, value);
                case "--token_file" -> tokenFile = required(flag, value);
                case "--listen" -> listen = required(flag, value);
                case "--allow_non_loopback" -> nonLoopback = value == null || Boolean.parseBoolean(value);
                case "--max_memory_bytes" -> memory = number(flag, value);
                case "--max_handles" -> handles = intNumber(flag, value);
                case "--max_in_flight" -> inFlight = intNumber(flag, value);
                case "--allowed_formats" -> formats = Set.of(required(flag, value).split(","));
                case "--max_connections" -> connections = intNumber(flag, value);
                case "--max_connections_per_address" -> connectionsPerAddress = intNumber(flag, value);
                case "--max_server_memory_bytes" -> serverMemory = number(flag, value);
                case "--tls_keystore" -> tlsKeystore = required(flag, value);
                case "--tls_password_file" -> tlsPassword = required(flag, value);
                case "--tls_client_ca" -> tlsClientCa = required(flag, value);
                case "--machine_index" -> machine = machineIndex(flag, value);
                default -> {
                    err.println("ortho serve-device: unknown flag '" + arg + "'");
                    return Cli.EXIT_USAGE;
                }
            }
        }
        if (device == null || tokenFile == null) {
            err.println("ortho serve-device: --device= and --token_file= are required");
            return Cli.EXIT_USAGE;
        }
        if ((tlsKeystore == null) != (tlsPassword == null) || (tlsClientCa != null && tlsKeystore == null)) {
            err.println("ortho serve-device: --tls_keystore= and --tls_password_file= go together, and "
                    + "--tls_client_ca= needs them");
            return Cli.EXIT_USAGE;
        }
        ServerOptions defaults = ServerOptions.defaults(ServerOptions.readToken(Path.of(tokenFile)));
        ServerOptions options = defaults.withListen(address(listen), nonLoopback)
                .withQuotas(memory > 0 ? memory : defaults.maxMemoryBytes(), handles > 0 ? handles : defaults.maxHandles(),
                        inFlight > 0 ? inFlight : defaults.maxInFlight())
                .withAllowedFormats(formats)
                .withServerLimits(connections > 0 ? connections : defaults.maxConnections(),
                        connectionsPerAddress > 0 ? connectionsPerAddress : defaults.maxConnectionsPerAddress(),
                        serverMemory > 0 ? serverMemory : defaults.serverMemoryBytes())
                .withTls(tlsKeystore == null ? null : ServerTls.load(Path.of(tlsKeystore), Path.of(tlsPassword),
                        tlsClientCa == null ? null : Path.of(tlsClientCa)));
        if (machine >= 0) {
            options = options.withMachine(machine);
            device = withMachine(device, machine);
        }
        String uri = device;
        drivers.createDevice(uri).close(); // fail now, not at the first client, if the device cannot be created
        try (DeviceServer server = DeviceServer.start(() -> drivers.createDevice(uri), options)) {
            out.println("serving " + uri + " on " + server.address().getHostString() + ":" + server.address().getPort()
                    + (options.tls() == null ? "" : " (TLS)"));
            out.flush();
            lifetime.serve(server);
            if (server.failure() != null) {
                err.println("ortho serve-device: the server stopped after " + server.failure());
                return Cli.EXIT_FAILURE;
            }
        }
        return Cli.EXIT_OK;
    }

    private static String required(String flag, String value) {
        if (value == null || value.isEmpty()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, flag + " needs a value, e.g. " + flag + "=...");
        }
        return value;
    }

    private static long number(String flag, String value) {
        try {
            long n = Long.parseLong(required(flag, value));
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT, flag + "='" + value + "' is not a positive number");
    }

    private static int intNumber(String flag, String value) {
        long n = number(flag, value);
        if (n > Integer.MAX_VALUE) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, flag + "='" + value + "' is above "
                    + Integer.MAX_VALUE);
        }
        return (int) n;
    }

    /** {@code --machine_index}: an integer in [0, 255]. */
    private static int machineIndex(String flag, String value) {
        try {
            int n = Integer.parseInt(required(flag, value));
            if (n >= 0 && n <= 255) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT, flag + "='" + value
                + "' is not a machine index in [0, 255]");
    }

    /**
     * A {@code local-task} device URI with {@code machine_index=machine} added (its queue axes
     * then carry the index); other drivers' URIs as they are (their devices have no queue axes of
     * their own to mark, or take the index from their own options).
     *
     * @throws StatusException INVALID_ARGUMENT if the URI names another machine index already
     */
    static String withMachine(String uri, int machine) {
        int colon = uri.indexOf(':');
        String scheme = colon < 0 ? uri : uri.substring(0, colon);
        if (!scheme.equals("local-task")) {
            return uri;
        }
        java.util.regex.Matcher given = java.util.regex.Pattern.compile("[?&]machine_index=([^&]*)").matcher(uri);
        if (given.find()) {
            if (given.group(1).equals(Integer.toString(machine))) {
                return uri;
            }
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "--machine_index='" + machine + "' contradicts "
                    + "the device URI's machine_index='" + given.group(1) + "' (" + uri + ")");
        }
        String base = colon < 0 ? uri + "://" : uri;
        return base + (base.contains("?") ? "&" : "?") + "machine_index=" + machine;
    }

    private static InetSocketAddress address(String listen) {
        int colon = listen.lastIndexOf(':');
        try {
            int port = Integer.parseInt(listen.substring(colon + 1));
            if (colon > 0 && port >= 0 && port <= 65535) {
                return new InetSocketAddress(listen.substring(0, colon), port);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT, "--listen='" + listen + "' is not HOST:PORT");
    }
}
