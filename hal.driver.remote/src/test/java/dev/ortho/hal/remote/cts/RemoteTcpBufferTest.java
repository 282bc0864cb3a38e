package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.BufferSuite;
import dev.ortho.hal.remote.Loopback;

/** The Buffer conformance suite on {@code remote://} over TCP, against a loopback server serving local-sync. */
class RemoteTcpBufferTest extends BufferSuite {
    @Override
    protected Device createDevice() {
        return Loopback.shared().connect();
    }
}
