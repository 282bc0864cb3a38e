package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.AllocatorSuite;

class LocalTaskAllocatorTest extends AllocatorSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.device();
    }

}
