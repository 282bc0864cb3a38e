package dev.ortho.hal.remote;

import java.net.InetSocketAddress;
import java.nio.file.Path;

/**
 * A device server in its own JVM, for tests that kill the server process or starve it (a small
 * heap, few file descriptors): serves local-sync on an ephemeral loopback port with the token in
 * {@code args[0]} (and, if given, {@code args[1]} connections in total and per address), prints {@code LISTENING <port>}, and runs until killed, or until the server
 * stops by itself (after an {@link Error}), when it prints {@code STOPPED <failure>} and exits 3.
 */
public final class ServerProcess {
    private ServerProcess() {}

    public static void main(String[] args) throws InterruptedException {
        ServerOptions options = ServerOptions.defaults(ServerOptions.readToken(Path.of(args[0])))
                .withListen(new InetSocketAddress("127.0.0.1", 0), false);
        if (args.length > 1) {
            int connections = Integer.parseInt(args[1]);
            options = options.withServerLimits(connections, connections, options.serverMemoryBytes());
        }
        var registry = Loopback.localSyncRegistry();
        DeviceServer server = DeviceServer.start(() -> registry.createDevice("local-sync://"), options);
        System.out.println("LISTENING " + server.address().getPort());
        System.out.flush();
        while (server.isRunning()) {
            Thread.sleep(100);
        }
        System.out.println("STOPPED " + server.failure());
        System.exit(3);
    }
}
