package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.AllocatorSuite;

class ValidationLocalTaskAllocatorTest extends AllocatorSuite {
    @Override
    protected Device createDevice() {
        return ValidationLocalTask.device();
    }
}
