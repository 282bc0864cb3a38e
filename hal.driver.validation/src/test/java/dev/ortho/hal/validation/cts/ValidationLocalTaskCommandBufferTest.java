package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.CommandBufferSuite;

class ValidationLocalTaskCommandBufferTest extends CommandBufferSuite {
    @Override
    protected Device createDevice() {
        return ValidationLocalTask.device();
    }
}
