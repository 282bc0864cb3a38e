package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.AsyncQueueSuite;

class LocalTaskAsyncQueueTest extends AsyncQueueSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.device();
    }

}
