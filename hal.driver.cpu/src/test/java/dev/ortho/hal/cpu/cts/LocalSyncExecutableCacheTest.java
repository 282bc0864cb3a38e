package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cts.ExecutableCacheSuite;

class LocalSyncExecutableCacheTest extends ExecutableCacheSuite {
    @Override
    protected Device createDevice() {
        return LocalSync.device();
    }

    @Override
    protected ExecutableParams testExecutable() {
        return LocalSync.testExecutable();
    }
}
