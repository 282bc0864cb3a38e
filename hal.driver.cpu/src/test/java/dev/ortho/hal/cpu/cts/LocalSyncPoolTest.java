package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.PoolSuite;

class LocalSyncPoolTest extends PoolSuite {
    @Override
    protected Device createDevice() {
        return LocalSync.device();
    }
}
