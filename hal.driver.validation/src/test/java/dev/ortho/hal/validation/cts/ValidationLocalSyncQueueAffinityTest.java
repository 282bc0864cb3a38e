package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.QueueAffinitySuite;

/** The queue-affinity conformance suite on validation+local-sync. */
class ValidationLocalSyncQueueAffinityTest extends QueueAffinitySuite {
    @Override
    protected Device createDevice() {
        return ValidationLocalSync.device();
    }
}
