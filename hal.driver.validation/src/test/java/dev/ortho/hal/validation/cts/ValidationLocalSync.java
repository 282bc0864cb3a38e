package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import dev.ortho.hal.validation.internal.ValidatingDevice;
import dev.ortho.hal.validation.internal.ValidationWrapper;

/**
 * How the CTS subclasses of this package get their device: {@code validation+local-sync://}
 * composed by a plain {@link DriverRegistry}, exactly as an application would.
 */
final class ValidationLocalSync {
    private static final DriverRegistry REGISTRY = new DriverRegistry();

    static {
        REGISTRY.register(CpuDrivers.builder().localSyncFactory());
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
        return new ExecutableParams(JvmStaticFormat.FORMAT, JvmStaticFormat.encode(CpuDrivers.BUILTIN_KERNELS), new int[0]);
    }
}
