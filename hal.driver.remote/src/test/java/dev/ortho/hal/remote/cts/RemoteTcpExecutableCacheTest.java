package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cts.ExecutableCacheSuite;
import dev.ortho.hal.remote.Loopback;

/** The ExecutableCache conformance suite on {@code remote://} over TCP, against a loopback server serving local-sync. */
class RemoteTcpExecutableCacheTest extends ExecutableCacheSuite {
    @Override
    protected Device createDevice() {
        return Loopback.shared().connect();
    }

    @Override
    protected ExecutableParams testExecutable() {
        return Loopback.testExecutable();
    }
}
