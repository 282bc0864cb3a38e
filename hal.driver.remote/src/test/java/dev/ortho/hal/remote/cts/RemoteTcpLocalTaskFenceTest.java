package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.FenceSuite;
import dev.ortho.hal.remote.Loopback;

/**
 * The Fence conformance suite on {@code remote://} over TCP, against a loopback server serving
 * {@code local-task}: operations whose waits are not reached are handed to the served device.
 * The client receives with {@code tcp_reader=selector} (the waiting thread waits in a selector),
 * so the conformance suites cover both readers: the local-sync suites run the default blocking reader.
 */
class RemoteTcpLocalTaskFenceTest extends FenceSuite {
    @Override
    protected Device createDevice() {
        return Loopback.sharedLocalTask().connect("tcp_reader=selector");
    }
}
