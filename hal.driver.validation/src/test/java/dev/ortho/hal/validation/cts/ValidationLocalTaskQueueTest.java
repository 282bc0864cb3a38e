package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.QueueSuite;

class ValidationLocalTaskQueueTest extends QueueSuite {
    @Override
    protected Device createDevice() {
        return ValidationLocalTask.device();
    }
}
