package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.AsyncQueueSuite;

class ValidationLocalTaskAsyncQueueTest extends AsyncQueueSuite {
    @Override
    protected Device createDevice() {
        return ValidationLocalTask.device();
    }
}
