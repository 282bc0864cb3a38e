package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.BufferSuite;

class ValidationLocalSyncBufferTest extends BufferSuite {
    @Override
    protected Device createDevice() {
        return ValidationLocalSync.device();
    }
}
