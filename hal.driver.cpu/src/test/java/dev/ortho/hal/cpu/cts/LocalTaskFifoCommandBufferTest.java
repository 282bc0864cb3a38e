package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.CommandBufferSuite;

/** The CommandBuffer suite on local-task with FIFO queues. */
class LocalTaskFifoCommandBufferTest extends CommandBufferSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.fifoDevice();
    }
}
