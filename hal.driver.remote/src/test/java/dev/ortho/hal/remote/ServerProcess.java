package dev.ortho.hal.remote;

import java.net.InetSocketAddress;
import java.nio.file.Path;

/**
 * A device server in its own JVM, for tests that kill the server process: serves local-sync on an
 * ephemeral loopback port with the token in {@code args[0]}, prints {@code LISTENING <port>} and
 * runs until killed.
 */
public final class ServerProcess {
    private ServerProcess() {}

    public static void main(String[] args) throws InterruptedException {
        ServerOptions options = ServerOptions.defaults(ServerOptions.readToken(Path.of(args[0])))
                .withListen(new InetSocketAddress("127.0.0.1", 0), false);
        var registry = Loopback.localSyncRegistry();
        DeviceServer server = DeviceServer.start(() -> registry.createDevice("local-sync://"), options);
        System.out.println("LISTENING " + server.address().getPort());
        System.out.flush();
        Thread.currentThread().join(); // until killed
    }
}
