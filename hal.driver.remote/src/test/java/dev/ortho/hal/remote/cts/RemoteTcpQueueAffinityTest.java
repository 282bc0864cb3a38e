package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.QueueAffinitySuite;
import dev.ortho.hal.remote.Loopback;

/** The queue-affinity conformance suite on remote:// over TCP, against a loopback server serving local-sync. */
class RemoteTcpQueueAffinityTest extends QueueAffinitySuite {
    @Override
    protected Device createDevice() {
        return Loopback.shared().connect();
    }
}
