package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.QueueSuite;
import dev.ortho.hal.remote.Loopback;

/** The Queue conformance suite on {@code remote://} over TCP, against a loopback server serving local-sync. */
class RemoteTcpQueueTest extends QueueSuite {
    @Override
    protected Device createDevice() {
        return Loopback.shared().connect();
    }
}
