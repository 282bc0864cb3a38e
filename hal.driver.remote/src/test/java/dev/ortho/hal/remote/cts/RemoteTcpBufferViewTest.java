package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.BufferViewSuite;
import dev.ortho.hal.remote.Loopback;

/** The BufferView conformance suite on {@code remote://} over TCP, against a loopback server serving local-sync. */
class RemoteTcpBufferViewTest extends BufferViewSuite {
    @Override
    protected Device createDevice() {
        return Loopback.shared().connect();
    }
}
