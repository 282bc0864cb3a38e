package dev.ortho.runtime;

import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.spi.DriverFactory;
import dev.ortho.vm.spi.BuiltinExtensions;
import dev.ortho.vm.spi.InstructionExtension;
import java.util.List;

/**
 * {@link OrthoRuntime#create()}: the only class that touches the CPU driver's package, which the
 * bundle imports optionally (an OSGi host uses the driver services instead).
 */
final class PlainDrivers {
    private PlainDrivers() {
    }

    static OrthoRuntime runtime() {
        List<InstructionExtension> extensions = BuiltinExtensions.all();
        DriverFactory sync = CpuDrivers.localSync(extensions);
        DriverFactory task = CpuDrivers.localTask(extensions);
        DriverRegistry registry = new DriverRegistry();
        registry.register(sync);
        registry.register(task);
        return new DefaultRuntime(registry, () -> extensions, List.of(task));
    }
}
