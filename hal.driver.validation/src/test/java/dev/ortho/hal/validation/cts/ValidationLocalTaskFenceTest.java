package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.FenceSuite;

class ValidationLocalTaskFenceTest extends FenceSuite {
    @Override
    protected Device createDevice() {
        return ValidationLocalTask.device();
    }
}
