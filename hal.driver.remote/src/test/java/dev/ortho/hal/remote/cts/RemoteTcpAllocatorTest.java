package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.AllocatorSuite;
import dev.ortho.hal.remote.Loopback;

/** The Allocator conformance suite on {@code remote://} over TCP, against a loopback server serving local-sync. */
class RemoteTcpAllocatorTest extends AllocatorSuite {
    @Override
    protected Device createDevice() {
        return Loopback.shared().connect();
    }
}
