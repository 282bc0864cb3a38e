package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cts.DispatchSuite;
import dev.ortho.hal.remote.Loopback;

/** The Dispatch conformance suite on {@code remote://} over TCP, against a loopback server serving local-sync. */
class RemoteTcpDispatchTest extends DispatchSuite {
    @Override
    protected Device createDevice() {
        return Loopback.shared().connect();
    }

    @Override
    protected ExecutableParams testExecutable() {
        return Loopback.testExecutable();
    }
}
