package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cts.DispatchSuite;
import java.util.Set;

class LocalTaskDispatchTest extends DispatchSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.device();
    }

    @Override
    protected Set<String> capabilities() {
        return LocalTask.CAPABILITIES;
    }

    @Override
    protected ExecutableParams testExecutable() {
        return LocalSync.testExecutable();
    }
}
