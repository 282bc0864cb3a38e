package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.FenceSuite;

/** The Fence suite on local-task with FIFO queues. */
class LocalTaskFifoFenceTest extends FenceSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.fifoDevice();
    }
}
