package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.SemaphoreSuite;

class ValidationLocalTaskSemaphoreTest extends SemaphoreSuite {
    @Override
    protected Device createDevice() {
        return ValidationLocalTask.device();
    }
}
