package dev.ortho.hal.remote;

import java.nio.file.Path;

/**
 * A host's worker child as a {@link ShmWorkerLauncher} would start it ({@code ortho.jar}'s is
 * {@code shm-worker}): serves the mailbox with devices created by URI through this JVM's own
 * registry ({@link Loopback#localSyncRegistry()}).
 */
public final class HostWorkerMain {
    private HostWorkerMain() {}

    public static void main(String[] args) throws InterruptedException {
        var registry = Loopback.localSyncRegistry();
        String device = args[2];
        ShmWorker.serve(Path.of(args[0]), Long.parseLong(args[1]), () -> registry.createDevice(device));
        System.exit(0);
    }
}
