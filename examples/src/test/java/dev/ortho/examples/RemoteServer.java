package dev.ortho.examples;

import dev.ortho.hal.remote.DeviceServer;
import dev.ortho.hal.remote.ServerOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * An in-process {@code ortho serve-device}: a {@link DeviceServer} on an ephemeral loopback port,
 * requiring a token read from a file, serving a fresh {@code local-task} device (same kernels
 * and VMVX loader as {@link ExampleHarness#registry()}) to each client.
 */
final class RemoteServer {
    private static RemoteServer shared;

    private final Path tokenFile;
    private final DeviceServer server;

    private RemoteServer() {
        byte[] token = ("examples-" + Long.toHexString(System.nanoTime())).getBytes(StandardCharsets.UTF_8);
        try {
            tokenFile = Files.createTempFile("ortho-examples-token", ".txt");
            Files.write(tokenFile, token);
            tokenFile.toFile().deleteOnExit();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        var registry = ExampleHarness.registry();
        server = DeviceServer.start(() -> registry.createDevice("local-task://"),
                ServerOptions.defaults(token).withListen(new InetSocketAddress("127.0.0.1", 0), false));
    }

    /** One server for the whole test run (never closed; its threads are daemons). */
    static synchronized RemoteServer shared() {
        if (shared == null) {
            shared = new RemoteServer();
        }
        return shared;
    }

    /** The device URI of this server, with its token file. */
    String uri() {
        return "remote://127.0.0.1:" + server.address().getPort() + "?token_file=" + tokenFile;
    }
}
