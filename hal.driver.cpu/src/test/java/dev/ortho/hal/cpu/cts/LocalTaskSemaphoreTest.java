package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.SemaphoreSuite;

class LocalTaskSemaphoreTest extends SemaphoreSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.device();
    }

}
