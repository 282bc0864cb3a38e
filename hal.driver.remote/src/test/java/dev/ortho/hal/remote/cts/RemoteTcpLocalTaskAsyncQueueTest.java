package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.AsyncQueueSuite;
import dev.ortho.hal.remote.Loopback;
import dev.ortho.hal.remote.ServerOptions;

/**
 * The asynchronous-queue conformance suite on {@code remote://} over TCP, against a loopback
 * server serving {@code local-task} with the default per-client quota of 1,024 operations in
 * flight: the suite's 10,000-operation pipeline checks that the server refuses past the quota.
 */
class RemoteTcpLocalTaskAsyncQueueTest extends AsyncQueueSuite {
    @Override
    protected Device createDevice() {
        return Loopback.sharedLocalTask().connect();
    }

    @Override
    protected int inFlightQuota() {
        return ServerOptions.defaults(new byte[] {1}).maxInFlight();
    }

    @Override
    protected boolean resourcesOutliveTheirDevice() {
        return false; // the server freed the device's buffers when it disconnected
    }
}
