package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.QueueSuite;
import java.util.Set;

class LocalTaskQueueTest extends QueueSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.device();
    }

    @Override
    protected Set<String> capabilities() {
        return LocalTask.CAPABILITIES;
    }
}
