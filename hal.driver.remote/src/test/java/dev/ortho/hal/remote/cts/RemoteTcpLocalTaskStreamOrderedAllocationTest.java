package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.StreamOrderedAllocationSuite;
import dev.ortho.hal.remote.Loopback;

/**
 * The StreamOrderedAllocation conformance suite on {@code remote://} over TCP, against a loopback server serving
 * {@code local-task}: operations whose waits are not reached are handed to the served device.
 */
class RemoteTcpLocalTaskStreamOrderedAllocationTest extends StreamOrderedAllocationSuite {
    @Override
    protected Device createDevice() {
        return Loopback.sharedLocalTask().connect();
    }
}
