package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.QueueAffinitySuite;

/** The queue-affinity conformance suite on validation+remote:// over TCP. */
class ValidationRemoteQueueAffinityTest extends QueueAffinitySuite {
    @Override
    protected Device createDevice() {
        return ValidationRemote.device();
    }
}
