package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.SemaphoreSuite;

/** The Semaphore suite on local-task with FIFO queues. */
class LocalTaskFifoSemaphoreTest extends SemaphoreSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.fifoDevice();
    }
}
