package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.SemaphoreSuite;
import java.util.Set;

class LocalTaskSemaphoreTest extends SemaphoreSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.device();
    }

    @Override
    protected Set<String> capabilities() {
        return LocalTask.CAPABILITIES;
    }
}
