package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.SemaphoreSuite;
import dev.ortho.hal.remote.Loopback;

/** The Semaphore conformance suite on {@code remote://} over TCP, against a loopback server serving local-sync. */
class RemoteTcpSemaphoreTest extends SemaphoreSuite {
    @Override
    protected Device createDevice() {
        return Loopback.shared().connect();
    }
}
