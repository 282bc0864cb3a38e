package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.QueueAffinitySuite;
import dev.ortho.hal.remote.Shm;

/** The queue-affinity conformance suite on remote://shm served by a pre-spawned child JVM (PROCESS mode). */
class RemoteShmQueueAffinityTest extends QueueAffinitySuite {
    @Override
    protected Device createDevice() {
        return Shm.connect("process");
    }
}
