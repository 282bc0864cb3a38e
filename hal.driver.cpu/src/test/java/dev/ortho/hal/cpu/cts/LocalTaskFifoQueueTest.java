package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.QueueSuite;

/** The Queue suite on local-task with FIFO queues. */
class LocalTaskFifoQueueTest extends QueueSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.fifoDevice();
    }
}
