package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.AsyncQueueSuite;
import java.util.Set;

class LocalTaskAsyncQueueTest extends AsyncQueueSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.device();
    }

    @Override
    protected Set<String> capabilities() {
        return LocalTask.CAPABILITIES;
    }
}
