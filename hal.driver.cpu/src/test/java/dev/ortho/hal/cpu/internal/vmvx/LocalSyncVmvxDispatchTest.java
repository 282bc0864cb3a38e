package dev.ortho.hal.cpu.internal.vmvx;

import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.cpu.internal.sync.LocalSyncDriver;

/** {@link VmvxDispatchSuite} on local-sync. */
class LocalSyncVmvxDispatchTest extends VmvxDispatchSuite {
    @Override
    Device createDevice() {
        try (LocalSyncDriver driver = new LocalSyncDriver(VmvxFixtures.registry())) {
            return driver.createDevice(DeviceUri.parse("local-sync://"));
        }
    }
}
