package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cts.ExecutableCacheSuite;

class ValidationLocalSyncExecutableCacheTest extends ExecutableCacheSuite {
    @Override
    protected Device createDevice() {
        return ValidationLocalSync.device();
    }

    @Override
    protected ExecutableParams testExecutable() {
        return ValidationLocalSync.testExecutable();
    }
}
