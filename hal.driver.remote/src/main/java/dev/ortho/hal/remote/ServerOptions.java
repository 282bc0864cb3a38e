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
 * @param allowNonLoopback binding a non-loopback address is refused unless this is set: the
 *     protocol is authenticated but not encrypted
 * @param token the shared secret every client must present (non-empty; compared in constant time)
 * @param maxMemoryBytes per-client quota of live buffer bytes
 * @param maxHandles per-client quota of live resource handles
 * @param maxInFlight per-client quota of queue operations accepted but not yet handed to the device
 * @param allowedFormats executable formats the server prepares; {@code jvm-static} names only
 *     kernel libraries installed on the server, never code sent by a client
 * @param maxFrameBytes largest frame accepted; a larger one closes that client's connection
 * @param executorThreads threads ({@code ortho-remote-exec-N}) that run clients' ready queue operations
 * @param handshakeTimeout how long a connection may take to authenticate
 * @param idleTimeout how long an authenticated client may stay silent before it is dropped and
 *     its resources freed (clients ping at a quarter of their own deadline, 5 s by default)
 */
public record ServerOptions(InetSocketAddress listen, boolean allowNonLoopback, byte[] token, long maxMemoryBytes,
        int maxHandles, int maxInFlight, Set<String> allowedFormats, int maxFrameBytes, int executorThreads,
        Duration handshakeTimeout, Duration idleTimeout) {

    /** The default port of {@code ortho serve-device}. */
    public static final int DEFAULT_PORT = 7640;
    /** Formats trusted by default: VMVX bytecode and installed {@code jvm-static} libraries. */
    public static final Set<String> DEFAULT_FORMATS = Set.of("vmvx-bytecode-fb", "jvm-static");

    /**
     * @throws StatusException INVALID_ARGUMENT naming the field and value for an empty token,
     *     non-positive quotas or sizes
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
    }

    /** Loopback port 7640, the given token, 1 GiB / 65536 handles / 1024 in flight per client. */
    public static ServerOptions defaults(byte[] token) {
        return new ServerOptions(new InetSocketAddress("127.0.0.1", DEFAULT_PORT), false, token, 1L << 30, 65536,
                1024, DEFAULT_FORMATS, Protocol.DEFAULT_MAX_FRAME_BYTES, 2, Duration.ofSeconds(10), Duration.ofMinutes(2));
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
                allowedFormats, maxFrameBytes, executorThreads, handshakeTimeout, idleTimeout);
    }

    public ServerOptions withQuotas(long memoryBytes, int handles, int inFlight) {
        return new ServerOptions(listen, allowNonLoopback, token, memoryBytes, handles, inFlight, allowedFormats,
                maxFrameBytes, executorThreads, handshakeTimeout, idleTimeout);
    }

    public ServerOptions withAllowedFormats(Set<String> formats) {
        return new ServerOptions(listen, allowNonLoopback, token, maxMemoryBytes, maxHandles, maxInFlight, formats,
                maxFrameBytes, executorThreads, handshakeTimeout, idleTimeout);
    }

    public ServerOptions withIdleTimeout(Duration timeout) {
        return new ServerOptions(listen, allowNonLoopback, token, maxMemoryBytes, maxHandles, maxInFlight,
                allowedFormats, maxFrameBytes, executorThreads, handshakeTimeout, timeout);
    }

    public ServerOptions withMaxFrameBytes(int bytes) {
        return new ServerOptions(listen, allowNonLoopback, token, maxMemoryBytes, maxHandles, maxInFlight,
                allowedFormats, bytes, executorThreads, handshakeTimeout, idleTimeout);
    }

    private static StatusException invalid(String message) {
        return new StatusException(StatusCode.INVALID_ARGUMENT, "server options: " + message);
    }
}
