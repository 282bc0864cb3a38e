package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.QueueAffinitySuite;

/** The QueueAffinity suite on local-task with FIFO queues. */
class LocalTaskFifoQueueAffinityTest extends QueueAffinitySuite {
    @Override
    protected Device createDevice() {
        return LocalTask.fifoDevice();
    }
}
