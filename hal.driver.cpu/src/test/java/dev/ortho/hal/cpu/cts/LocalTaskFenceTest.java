package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.FenceSuite;

class LocalTaskFenceTest extends FenceSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.device();
    }
}
