package dev.ortho.hal.remote;

import dev.ortho.hal.Device;
import java.util.function.Supplier;

/** What shared-memory workers in the tests serve: a local-sync device with the builtin kernels. */
public final class LocalSyncSupplier implements Supplier<Device> {
    @Override
    public Device get() {
        return Loopback.localSyncRegistry().createDevice("local-sync://");
    }
}
