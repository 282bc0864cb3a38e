package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.CommandBufferSuite;

class LocalTaskCommandBufferTest extends CommandBufferSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.device();
    }

}
