package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.remote.Loopback;

/**
 * The asynchronous-queue conformance suite on {@code remote://} over TCP, against a loopback
 * server serving {@code local-task} with the default per-client quota of 1,024 operations in
 * flight: the suite's 10,000-operation pipeline checks that the server refuses past the quota.
 * The client receives with {@code tcp_reader=selector} (the waiting thread waits in a selector),
 * so the conformance suites cover both readers: the local-sync suites run the default blocking reader.
 */
class RemoteTcpLocalTaskAsyncQueueTest extends RemoteAsyncQueueSuite {
    @Override
    protected Device createDevice() {
        return Loopback.sharedLocalTask().connect("tcp_reader=selector");
    }
}
