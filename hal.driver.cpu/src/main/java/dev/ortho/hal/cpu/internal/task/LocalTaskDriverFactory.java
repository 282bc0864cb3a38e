package dev.ortho.hal.cpu.internal.task;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Driver;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.cpu.internal.executable.KernelLibraryRegistry;
import dev.ortho.hal.spi.DriverFactory;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Creates {@link LocalTaskDriver}s sharing one {@link KernelLibraryRegistry} and one set of
 * default options. Plain Java: {@code new LocalTaskDriverFactory(new KernelLibraryRegistry(
 * List.of(new BuiltinKernels())), LocalTaskOptions.DEFAULTS)}. Thread-safe.
 */
public final class LocalTaskDriverFactory implements DriverFactory {
    private final KernelLibraryRegistry libraries;
    private final LocalTaskOptions defaults;
    private final AtomicInteger ordinals = new AtomicInteger();

    public LocalTaskDriverFactory(KernelLibraryRegistry libraries, LocalTaskOptions defaults) {
        this.libraries = libraries;
        this.defaults = defaults;
    }

    @Override
    public List<DriverInfo> enumerate() {
        return List.of(LocalTaskDriver.INFO);
    }

    @Override
    public Driver createDriver(String driverName) {
        if (!LocalTaskDriver.NAME.equals(driverName)) {
            throw new StatusException(StatusCode.NOT_FOUND, "driver factory '" + LocalTaskDriver.NAME
                    + "' cannot create driver '" + driverName + "'");
        }
        return new LocalTaskDriver(libraries, defaults, ordinals);
    }
}
