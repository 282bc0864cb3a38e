package dev.ortho.hal.remote;

import dev.ortho.hal.Device;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.remote.internal.client.RemoteDriverFactory;

/** Remote devices over the shared-memory transport, from one factory whose worker pools the tests share. */
public final class Shm {
    private static DriverRegistry registry;

    private Shm() {}

    private static synchronized DriverRegistry registry() {
        if (registry == null) {
            registry = new DriverRegistry();
            registry.register(new RemoteDriverFactory(name -> null));
        }
        return registry;
    }

    /** A device served by a pre-spawned worker in {@code mode} ("process" or "thread"). */
    public static Device connect(String mode) {
        return registry().createDevice("remote://shm?mode=" + mode + "&workers=2&supplier="
                + LocalSyncSupplier.class.getName());
    }
}
