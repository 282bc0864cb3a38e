package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.CommandBufferSuite;
import java.util.Set;

class LocalTaskCommandBufferTest extends CommandBufferSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.device();
    }

    @Override
    protected Set<String> capabilities() {
        return LocalTask.CAPABILITIES;
    }
}
