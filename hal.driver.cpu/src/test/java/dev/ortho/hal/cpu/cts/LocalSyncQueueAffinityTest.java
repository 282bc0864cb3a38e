package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.QueueAffinitySuite;

/** The queue-affinity conformance suite on local-sync. */
class LocalSyncQueueAffinityTest extends QueueAffinitySuite {
    @Override
    protected Device createDevice() {
        return LocalSync.device();
    }
}
