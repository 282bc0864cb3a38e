package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.CommandBufferSuite;

class ValidationLocalSyncCommandBufferTest extends CommandBufferSuite {
    @Override
    protected Device createDevice() {
        return ValidationLocalSync.device();
    }
}
