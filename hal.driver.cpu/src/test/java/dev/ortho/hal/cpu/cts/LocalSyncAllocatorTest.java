package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.AllocatorSuite;

class LocalSyncAllocatorTest extends AllocatorSuite {
    @Override
    protected Device createDevice() {
        return LocalSync.device();
    }
}
