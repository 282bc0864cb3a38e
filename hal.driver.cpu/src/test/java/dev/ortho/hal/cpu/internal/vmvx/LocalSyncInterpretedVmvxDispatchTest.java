package dev.ortho.hal.cpu.internal.vmvx;

import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.cpu.internal.sync.LocalSyncDriver;
import dev.ortho.vm.bytecode.ExecutionMode;

/** {@link VmvxDispatchSuite} on local-sync with the dispatch functions interpreted ({@code vmvx_compile=off}). */
class LocalSyncInterpretedVmvxDispatchTest extends VmvxDispatchSuite {
    @Override
    Device createDevice() {
        try (LocalSyncDriver driver = new LocalSyncDriver(VmvxFixtures.registry())) {
            return driver.createDevice(DeviceUri.parse("local-sync://?vmvx_compile=off"));
        }
    }

    @Override
    ExecutionMode kernelExecution() {
        return ExecutionMode.OFF;
    }
}
