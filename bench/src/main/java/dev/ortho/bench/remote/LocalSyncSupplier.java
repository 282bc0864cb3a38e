package dev.ortho.bench.remote;

import dev.ortho.hal.Device;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.cpu.internal.builtin.BuiltinKernels;
import dev.ortho.hal.cpu.internal.executable.KernelLibraryRegistry;
import dev.ortho.hal.cpu.internal.sync.LocalSyncDriverFactory;
import java.util.List;
import java.util.function.Supplier;

/** The device shared-memory workers serve in the benchmarks (instantiated by name in the worker). */
public final class LocalSyncSupplier implements Supplier<Device> {
    @Override
    public Device get() {
        DriverRegistry registry = new DriverRegistry();
        registry.register(new LocalSyncDriverFactory(new KernelLibraryRegistry(List.of(new BuiltinKernels()))));
        return registry.createDevice("local-sync");
    }
}
