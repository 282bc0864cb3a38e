package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cpu.internal.builtin.BuiltinKernels;
import dev.ortho.hal.cpu.internal.executable.KernelLibraryRegistry;
import dev.ortho.hal.cpu.internal.sync.LocalSyncDriver;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import java.util.List;

/** How the CTS subclasses of this package get a local-sync device and the CTS test executable. */
final class LocalSync {
    private LocalSync() {}

    static Device device() {
        try (LocalSyncDriver driver = new LocalSyncDriver(new KernelLibraryRegistry(List.of(new BuiltinKernels())))) {
            return driver.createDevice(DeviceUri.parse("local-sync://"));
        }
    }

    static ExecutableParams testExecutable() {
        return new ExecutableParams(JvmStaticFormat.FORMAT, JvmStaticFormat.encode(BuiltinKernels.NAME), new int[0]);
    }
}
