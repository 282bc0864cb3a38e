package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.DeviceSuite;

class LocalTaskDeviceTest extends DeviceSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.device();
    }
}
