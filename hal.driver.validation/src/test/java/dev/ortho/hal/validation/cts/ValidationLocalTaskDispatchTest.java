package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cts.DispatchSuite;

class ValidationLocalTaskDispatchTest extends DispatchSuite {
    @Override
    protected Device createDevice() {
        return ValidationLocalTask.device();
    }

    @Override
    protected ExecutableParams testExecutable() {
        return ValidationLocalTask.testExecutable();
    }
}
