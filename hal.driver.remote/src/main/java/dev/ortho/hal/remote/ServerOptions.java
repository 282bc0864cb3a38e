package dev.ortho.hal.remote;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;

/**
 * How a {@link DeviceServer} listens and what it allows each client. Immutable; build with
 * {@link #defaults(byte[])} and the {@code with…} methods.
 *
 * @param listen the address to bind; loopback unless {@code allowNonLoopback}
 * @param allowNonLoopback binding a non-loopback address is refused unless this is set: without
 *     {@code tls} the protocol is authenticated but not encrypted
 * @param token the shared secret every client must prove (non-empty; it never travels: clients
 *     answer a per-connection nonce with an HMAC of it, compared in constant time)
 * @param maxMemoryBytes per-client quota of live buffer bytes
 * @param maxHandles per-client quota of live resource handles
 * @param maxInFlight per-client quota of queue operations whose waits were not reached when they
 *     arrived: held by the server until they are, or (an asynchronous device without FIFO queues)
 *     handed to the device with them and not finished yet
 * @param allowedFormats executable formats the server prepares; {@code jvm-static} names only
 *     kernel libraries installed on the server, never code sent by a client
 * @param maxFrameBytes largest frame accepted from an authenticated client; a larger one closes
 *     that client's connection (before authentication the limit is
 *     {@link Protocol#HANDSHAKE_MAX_FRAME_BYTES})
 * @param executorThreads threads ({@code ortho-remote-exec-N}) that run clients' ready queue
 *     operations, allocations and executable preparations
 * @param handshakeTimeout how long a connection may take to authenticate
 * @param idleTimeout how long an authenticated client may stay silent before it is dropped and
 *     its resources freed (clients ping at a quarter of their own deadline, 5 s by default)
 * @param maxConnections connections open at once (authenticated or not); more are closed as
 *     soon as they are accepted
 * @param maxConnectionsPerAddress connections open at once from one remote IP address
 * @param serverMemoryBytes live buffer bytes of all clients together: the server-wide budget
 *     beside the per-client {@code maxMemoryBytes}
 * @param tls TLS for every connection, or null for plain TCP
 * @param machine the machine index (0 to 255) the served devices' queue axes carry, announced to
 *     clients in the handshake so frontiers from two servers never name the same axis; 0 (the
 *     default) means not assigned: the devices use the process's axes ({@code QueueAxes.process()})
 *     and two servers are told apart only by their random session epochs
 */
public record ServerOptions(InetSocketAddress listen, boolean allowNonLoopback, byte[] token, long maxMemoryBytes,
        int maxHandles, int maxInFlight, Set<String> allowedFormats, int maxFrameBytes, int executorThreads,
        Duration handshakeTimeout, Duration idleTimeout, int maxConnections, int maxConnectionsPerAddress,
        long serverMemoryBytes, ServerTls tls, int machine) {

    /** The default port of {@code ortho serve-device}. */
    public static final int DEFAULT_PORT = 7640;
    /** Formats trusted by default: VMVX bytecode and installed {@code jvm-static} libraries. */
    public static final Set<String> DEFAULT_FORMATS = Set.of("vmvx-bytecode-fb", "jvm-static");

    /**
     * @throws StatusException INVALID_ARGUMENT naming the field and value for an empty token,
     *     non-positive quotas, limits or sizes
     */
    public ServerOptions {
        token = token == null ? new byte[0] : token.clone();
        allowedFormats = Set.copyOf(allowedFormats);
        if (token.length == 0) {
            throw invalid("token is empty; the server requires a shared token (--token_file=)");
        }
        if (maxMemoryBytes <= 0 || maxHandles <= 0 || maxInFlight <= 0) {
            throw invalid("quotas must be positive: memory " + maxMemoryBytes + " bytes, " + maxHandles
                    + " handles, " + maxInFlight + " in-flight submissions");
        }
        if (maxFrameBytes < 4096 || executorThreads <= 0) {
            throw invalid("max frame bytes " + maxFrameBytes + " must be at least 4096 and executor threads "
                    + executorThreads + " at least 1");
        }
        if (maxConnections <= 0 || maxConnectionsPerAddress <= 0 || serverMemoryBytes <= 0) {
            throw invalid("server limits must be positive: " + maxConnections + " connections, "
                    + maxConnectionsPerAddress + " connections per address, " + serverMemoryBytes + " memory bytes");
        }
        if (machine < 0 || machine > 255) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "server options: machine index " + machine
                    + " is outside [0, 255]");
        }
    }

    /** The options without a machine index (version 1.0's constructor). */
    public ServerOptions(InetSocketAddress listen, boolean allowNonLoopback, byte[] token, long maxMemoryBytes,
            int maxHandles, int maxInFlight, Set<String> allowedFormats, int maxFrameBytes, int executorThreads,
            Duration handshakeTimeout, Duration idleTimeout, int maxConnections, int maxConnectionsPerAddress,
            long serverMemoryBytes, ServerTls tls) {
        this(listen, allowNonLoopback, token, maxMemoryBytes, maxHandles, maxInFlight, allowedFormats, maxFrameBytes,
                executorThreads, handshakeTimeout, idleTimeout, maxConnections, maxConnectionsPerAddress,
                serverMemoryBytes, tls, 0);
    }

    /**
     * Loopback port 7640, the given token, 1 GiB / 65536 handles / 1024 in flight per client,
     * 256 connections (64 per address) and 4 GiB of buffers in all.
     */
    public static ServerOptions defaults(byte[] token) {
        return new ServerOptions(new InetSocketAddress("127.0.0.1", DEFAULT_PORT), false, token, 1L << 30, 65536,
                1024, DEFAULT_FORMATS, Protocol.DEFAULT_MAX_FRAME_BYTES, 2, Duration.ofSeconds(10), Duration.ofMinutes(2),
                256, 64, 4L << 30, null);
    }

    /**
     * Reads a token file: its contents without surrounding whitespace.
     *
     * @throws StatusException NOT_FOUND naming the file if it cannot be read, INVALID_ARGUMENT if empty
     */
    public static byte[] readToken(Path file) {
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8).strip();
            if (text.isEmpty()) {
                throw invalid("token file '" + file + "' is empty");
            }
            return text.getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new StatusException(StatusCode.NOT_FOUND, "cannot read token file '" + file + "': " + e.getMessage());
        }
    }

    public ServerOptions withListen(InetSocketAddress address, boolean nonLoopbackAllowed) {
        return new ServerOptions(address, nonLoopbackAllowed, token, maxMemoryBytes, maxHandles, maxInFlight,
                allowedFormats, maxFrameBytes, executorThreads, handshakeTimeout, idleTimeout, maxConnections,
                maxConnectionsPerAddress, serverMemoryBytes, tls, machine);
    }

    public ServerOptions withQuotas(long memoryBytes, int handles, int inFlight) {
        return new ServerOptions(listen, allowNonLoopback, token, memoryBytes, handles, inFlight, allowedFormats,
                maxFrameBytes, executorThreads, handshakeTimeout, idleTimeout, maxConnections,
                maxConnectionsPerAddress, serverMemoryBytes, tls, machine);
    }

    public ServerOptions withAllowedFormats(Set<String> formats) {
        return new ServerOptions(listen, allowNonLoopback, token, maxMemoryBytes, maxHandles, maxInFlight, formats,
                maxFrameBytes, executorThreads, handshakeTimeout, idleTimeout, maxConnections,
                maxConnectionsPerAddress, serverMemoryBytes, tls, machine);
    }

    public ServerOptions withIdleTimeout(Duration timeout) {
        return new ServerOptions(listen, allowNonLoopback, token, maxMemoryBytes, maxHandles, maxInFlight,
                allowedFormats, maxFrameBytes, executorThreads, handshakeTimeout, timeout, maxConnections,
                maxConnectionsPerAddress, serverMemoryBytes, tls, machine);
    }

    public ServerOptions withHandshakeTimeout(Duration timeout) {
        return new ServerOptions(listen, allowNonLoopback, token, maxMemoryBytes, maxHandles, maxInFlight,
                allowedFormats, maxFrameBytes, executorThreads, timeout, idleTimeout, maxConnections,
                maxConnectionsPerAddress, serverMemoryBytes, tls, machine);
    }

    public ServerOptions withMaxFrameBytes(int bytes) {
        return new ServerOptions(listen, allowNonLoopback, token, maxMemoryBytes, maxHandles, maxInFlight,
                allowedFormats, bytes, executorThreads, handshakeTimeout, idleTimeout, maxConnections,
                maxConnectionsPerAddress, serverMemoryBytes, tls, machine);
    }

    /** TLS for every connection ({@code null}: plain TCP). */
    public ServerOptions withTls(ServerTls serverTls) {
        return new ServerOptions(listen, allowNonLoopback, token, maxMemoryBytes, maxHandles, maxInFlight,
                allowedFormats, maxFrameBytes, executorThreads, handshakeTimeout, idleTimeout, maxConnections,
                maxConnectionsPerAddress, serverMemoryBytes, serverTls, machine);
    }

    /** Connection limits (total, per remote address) and the server-wide memory budget. */
    public ServerOptions withServerLimits(int connections, int connectionsPerAddress, long memoryBytes) {
        return new ServerOptions(listen, allowNonLoopback, token, maxMemoryBytes, maxHandles, maxInFlight,
                allowedFormats, maxFrameBytes, executorThreads, handshakeTimeout, idleTimeout, connections,
                connectionsPerAddress, memoryBytes, tls, machine);
    }

    /**
     * The machine index the served devices' queue axes carry (their driver must take its axes
     * from a {@code QueueAxes} of this machine; {@code ortho serve-device --machine_index=N} does).
     *
     * @throws StatusException OUT_OF_RANGE outside [0, 255]
     * @since 1.1
     */
    public ServerOptions withMachine(int index) {
        return new ServerOptions(listen, allowNonLoopback, token, maxMemoryBytes, maxHandles, maxInFlight,
                allowedFormats, maxFrameBytes, executorThreads, handshakeTimeout, idleTimeout, maxConnections,
                maxConnectionsPerAddress, serverMemoryBytes, tls, index);
    }

    private static StatusException invalid(String message) {
        return new StatusException(StatusCode.INVALID_ARGUMENT, "server options: " + message);
    }
}
