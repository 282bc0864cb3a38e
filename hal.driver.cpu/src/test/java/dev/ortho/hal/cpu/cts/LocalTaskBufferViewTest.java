package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.BufferViewSuite;

class LocalTaskBufferViewTest extends BufferViewSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.device();
    }
}
