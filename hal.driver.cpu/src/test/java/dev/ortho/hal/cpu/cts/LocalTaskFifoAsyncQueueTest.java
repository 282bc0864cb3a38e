package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.AsyncQueueSuite;

/** The AsyncQueue suite on local-task with FIFO queues. */
class LocalTaskFifoAsyncQueueTest extends AsyncQueueSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.fifoDevice();
    }
}
