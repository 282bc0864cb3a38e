package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.BufferSuite;

class LocalTaskBufferTest extends BufferSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.device();
    }

}
