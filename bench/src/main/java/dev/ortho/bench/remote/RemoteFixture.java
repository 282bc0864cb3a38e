package dev.ortho.bench.remote;

import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.remote.DeviceServer;
import dev.ortho.hal.remote.ServerOptions;
import dev.ortho.hal.remote.internal.client.RemoteDriver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** An in-process loopback device server serving local-sync, and clients of it. */
final class RemoteFixture implements AutoCloseable {
    final DriverRegistry registry = new DriverRegistry();
    final DeviceServer server;
    private final Path token;
    private final RemoteDriver remoteDriver = new RemoteDriver(name -> null);

    RemoteFixture() {
        registry.register(CpuDrivers.builder().localSyncFactory());
        try {
            token = Files.createTempFile("ortho-bench-token", "");
            Files.writeString(token, "bench-token", StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server = DeviceServer.start(() -> registry.createDevice("local-sync"),
                ServerOptions.defaults("bench-token".getBytes(StandardCharsets.UTF_8))
                        .withListen(new InetSocketAddress("127.0.0.1", 0), false));
    }

    Device connect() {
        return connect("");
    }

    /** A device over loopback TCP with the extra URI parameters {@code params} ("" or "&k=v…"). */
    Device connect(String params) {
        try (RemoteDriver driver = new RemoteDriver(name -> null)) {
            return driver.createDevice(DeviceUri.parse("remote://127.0.0.1:" + server.address().getPort()
                    + "?token_file=" + token + params));
        }
    }

    /**
     * A device on a pre-spawned shared-memory worker ("process" or "thread") serving local-sync;
     * {@code -Dortho.bench.shm.worker_cpus=LIST} adds {@code worker_cpus=LIST} (the worker's pump
     * kept on those CPUs; run the benchmark JVM on the others, e.g. under {@code taskset -c 0}).
     */
    Device connectShm(String mode) {
        String cpus = System.getProperty("ortho.bench.shm.worker_cpus", "");
        return remoteDriver.createDevice(DeviceUri.parse("remote://shm?mode=" + mode + "&supplier="
                + LocalSyncSupplier.class.getName() + (cpus.isEmpty() ? "" : "&worker_cpus=" + cpus)));
    }

    Device local() {
        return registry.createDevice("local-sync");
    }

    @Override
    public void close() {
        server.close();
        remoteDriver.close();
        try {
            Files.deleteIfExists(token);
        } catch (IOException ignored) {
            // temp file
        }
    }
}
