package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.DeviceSuite;

class ValidationLocalSyncDeviceTest extends DeviceSuite {
    @Override
    protected Device createDevice() {
        return ValidationLocalSync.device();
    }
}
