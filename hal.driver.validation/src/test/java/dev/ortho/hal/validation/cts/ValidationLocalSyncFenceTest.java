package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.FenceSuite;

class ValidationLocalSyncFenceTest extends FenceSuite {
    @Override
    protected Device createDevice() {
        return ValidationLocalSync.device();
    }
}
