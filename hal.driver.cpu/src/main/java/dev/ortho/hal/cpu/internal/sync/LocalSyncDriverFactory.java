package dev.ortho.hal.cpu.internal.sync;

import dev.ortho.hal.Driver;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.cpu.internal.driver.DefaultDeviceDriver;
import dev.ortho.hal.cpu.internal.executable.KernelLibraryRegistry;
import dev.ortho.hal.spi.DriverFactory;
import java.util.List;

/**
 * Creates {@link LocalSyncDriver}s sharing one {@link KernelLibraryRegistry}. Plain Java: {@code
 * registry.register(new LocalSyncDriverFactory(new KernelLibraryRegistry(List.of(new
 * BuiltinKernels()))))}. Thread-safe.
 */
public final class LocalSyncDriverFactory implements DriverFactory {
    private final KernelLibraryRegistry libraries;

    public LocalSyncDriverFactory(KernelLibraryRegistry libraries) {
        this.libraries = libraries;
    }

    @Override
    public List<DriverInfo> enumerate() {
        return List.of(LocalSyncDriver.INFO);
    }

    @Override
    public Driver createDriver(String driverName) {
        DefaultDeviceDriver.requireDriverName(LocalSyncDriver.INFO, driverName);
        return new LocalSyncDriver(libraries);
    }
}
