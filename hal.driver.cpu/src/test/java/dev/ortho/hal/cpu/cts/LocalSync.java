package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;

/** How the CTS subclasses of this package get a local-sync device and the CTS test executable. */
final class LocalSync {
    private LocalSync() {}

    static Device device() {
        return CpuDrivers.builder().localSync();
    }

    static ExecutableParams testExecutable() {
        return new ExecutableParams(JvmStaticFormat.FORMAT, JvmStaticFormat.encode(CpuDrivers.BUILTIN_KERNELS),
                new int[0]);
    }
}
