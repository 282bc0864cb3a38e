package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.AllocatorSuite;
import java.util.Set;

class LocalTaskAllocatorTest extends AllocatorSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.device();
    }

    @Override
    protected Set<String> capabilities() {
        return LocalTask.CAPABILITIES;
    }
}
