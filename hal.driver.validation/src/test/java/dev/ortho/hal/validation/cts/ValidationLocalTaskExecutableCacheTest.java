package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cts.ExecutableCacheSuite;

class ValidationLocalTaskExecutableCacheTest extends ExecutableCacheSuite {
    @Override
    protected Device createDevice() {
        return ValidationLocalTask.device();
    }

    @Override
    protected ExecutableParams testExecutable() {
        return ValidationLocalTask.testExecutable();
    }
}
