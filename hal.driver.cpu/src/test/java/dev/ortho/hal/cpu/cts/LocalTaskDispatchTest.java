package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cts.DispatchSuite;

class LocalTaskDispatchTest extends DispatchSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.device();
    }


    @Override
    protected ExecutableParams testExecutable() {
        return LocalSync.testExecutable();
    }
}
