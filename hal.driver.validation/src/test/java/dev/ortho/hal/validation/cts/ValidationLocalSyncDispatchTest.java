package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cts.DispatchSuite;

class ValidationLocalSyncDispatchTest extends DispatchSuite {
    @Override
    protected Device createDevice() {
        return ValidationLocalSync.device();
    }

    @Override
    protected ExecutableParams testExecutable() {
        return ValidationLocalSync.testExecutable();
    }
}
