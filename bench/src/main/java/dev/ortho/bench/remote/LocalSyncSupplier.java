package dev.ortho.bench.remote;

import dev.ortho.hal.Device;
import dev.ortho.hal.DriverRegistry;
import java.util.function.Supplier;
import dev.ortho.hal.cpu.CpuDrivers;

/** The device shared-memory workers serve in the benchmarks (instantiated by name in the worker). */
public final class LocalSyncSupplier implements Supplier<Device> {
    @Override
    public Device get() {
        DriverRegistry registry = new DriverRegistry();
        registry.register(CpuDrivers.builder().localSyncFactory());
        return registry.createDevice("local-sync");
    }
}
