package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.QueueAffinitySuite;

/** The queue-affinity conformance suite on local-task (3 queues, 2 workers). */
class LocalTaskQueueAffinityTest extends QueueAffinitySuite {
    @Override
    protected Device createDevice() {
        return LocalTask.device();
    }
}
