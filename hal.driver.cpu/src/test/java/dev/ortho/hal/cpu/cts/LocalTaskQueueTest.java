package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.QueueSuite;

class LocalTaskQueueTest extends QueueSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.device();
    }

}
