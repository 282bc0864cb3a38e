package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cpu.internal.builtin.BuiltinKernels;
import dev.ortho.hal.cpu.internal.executable.KernelLibraryRegistry;
import dev.ortho.hal.cpu.internal.sync.LocalSyncDriverFactory;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import dev.ortho.hal.validation.internal.ValidatingDevice;
import dev.ortho.hal.validation.internal.ValidationWrapper;
import java.util.List;

/**
 * How the CTS subclasses of this package get their device: {@code validation+local-sync://}
 * composed by a plain {@link DriverRegistry}, exactly as an application would.
 */
final class ValidationLocalSync {
    private static final DriverRegistry REGISTRY = new DriverRegistry();

    static {
        REGISTRY.register(new LocalSyncDriverFactory(new KernelLibraryRegistry(List.of(new BuiltinKernels()))));
        REGISTRY.registerWrapper(new ValidationWrapper());
    }

    private ValidationLocalSync() {}

    static Device device() {
        Device device = REGISTRY.createDevice("validation+local-sync://");
        if (!(device instanceof ValidatingDevice)) {
            throw new AssertionError("validation+local-sync:// created " + device + ", not a validating device");
        }
        return device;
    }

    static ExecutableParams testExecutable() {
        return new ExecutableParams(JvmStaticFormat.FORMAT, JvmStaticFormat.encode(BuiltinKernels.NAME), new int[0]);
    }
}
