package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import dev.ortho.hal.validation.internal.ValidatingDevice;
import dev.ortho.hal.validation.internal.ValidationWrapper;

/**
 * How the CTS subclasses of this package get their device: {@code validation+local-task://} (3 queues, 2 workers)
 * composed by a plain {@link DriverRegistry}, exactly as an application would.
 */
final class ValidationLocalTask {
    private static final DriverRegistry REGISTRY = new DriverRegistry();

    static {
        REGISTRY.register(CpuDrivers.builder().localTaskFactory());
        REGISTRY.registerWrapper(new ValidationWrapper());
    }

    private ValidationLocalTask() {}

    static Device device() {
        return device("validation+local-task://?queue_count=3&task_topology_group_count=2");
    }

    static Device device(String uri) {
        Device device = REGISTRY.createDevice(uri);
        if (!(device instanceof ValidatingDevice)) {
            throw new AssertionError(uri + " created " + device + ", not a validating device");
        }
        return device;
    }

    static ExecutableParams testExecutable() {
        return new ExecutableParams(JvmStaticFormat.FORMAT, JvmStaticFormat.encode(CpuDrivers.BUILTIN_KERNELS), new int[0]);
    }
}
