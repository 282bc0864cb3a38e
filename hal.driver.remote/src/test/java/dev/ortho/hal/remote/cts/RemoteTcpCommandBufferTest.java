package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.CommandBufferSuite;
import dev.ortho.hal.remote.Loopback;

/** The CommandBuffer conformance suite on {@code remote://} over TCP, against a loopback server serving local-sync. */
class RemoteTcpCommandBufferTest extends CommandBufferSuite {
    @Override
    protected Device createDevice() {
        return Loopback.shared().connect();
    }
}
