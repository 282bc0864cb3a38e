package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.BufferSuite;

class ValidationLocalTaskBufferTest extends BufferSuite {
    @Override
    protected Device createDevice() {
        return ValidationLocalTask.device();
    }
}
