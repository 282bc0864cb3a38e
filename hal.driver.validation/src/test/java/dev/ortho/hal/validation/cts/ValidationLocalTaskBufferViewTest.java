package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.BufferViewSuite;

class ValidationLocalTaskBufferViewTest extends BufferViewSuite {
    @Override
    protected Device createDevice() {
        return ValidationLocalTask.device();
    }
}
