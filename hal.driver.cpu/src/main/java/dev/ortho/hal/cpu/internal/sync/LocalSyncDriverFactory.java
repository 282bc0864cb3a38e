package dev.ortho.hal.cpu.internal.sync;

import dev.ortho.hal.Driver;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.cpu.internal.driver.DefaultDeviceDriver;
import dev.ortho.hal.cpu.internal.executable.ExecutableLoaders;
import dev.ortho.hal.spi.DriverFactory;
import java.util.List;

/**
 * Creates {@link LocalSyncDriver}s sharing one {@link ExecutableLoaders}. Plain Java: use
 * {@code dev.ortho.hal.cpu.CpuDevices}. Thread-safe.
 */
public final class LocalSyncDriverFactory implements DriverFactory {
    private final ExecutableLoaders loaders;

    public LocalSyncDriverFactory(ExecutableLoaders loaders) {
        this.loaders = loaders;
    }

    @Override
    public List<DriverInfo> enumerate() {
        return List.of(LocalSyncDriver.INFO);
    }

    @Override
    public Driver createDriver(String driverName) {
        DefaultDeviceDriver.requireDriverName(LocalSyncDriver.INFO, driverName);
        return new LocalSyncDriver(loaders);
    }
}
