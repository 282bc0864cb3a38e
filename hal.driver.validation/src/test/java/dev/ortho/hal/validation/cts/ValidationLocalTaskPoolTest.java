package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.PoolSuite;

class ValidationLocalTaskPoolTest extends PoolSuite {
    @Override
    protected Device createDevice() {
        return ValidationLocalTask.device();
    }
}
