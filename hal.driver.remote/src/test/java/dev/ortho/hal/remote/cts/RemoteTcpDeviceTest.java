package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.DeviceSuite;
import dev.ortho.hal.remote.Loopback;

/** The Device conformance suite on {@code remote://} over TCP, against a loopback server serving local-sync. */
class RemoteTcpDeviceTest extends DeviceSuite {
    @Override
    protected Device createDevice() {
        return Loopback.shared().connect();
    }
}
