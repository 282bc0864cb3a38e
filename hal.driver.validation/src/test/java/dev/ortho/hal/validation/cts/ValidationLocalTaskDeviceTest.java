package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.DeviceSuite;

class ValidationLocalTaskDeviceTest extends DeviceSuite {
    @Override
    protected Device createDevice() {
        return ValidationLocalTask.device();
    }
}
