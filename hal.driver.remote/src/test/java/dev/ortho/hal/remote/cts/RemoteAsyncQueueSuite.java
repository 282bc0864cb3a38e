package dev.ortho.hal.remote.cts;

import dev.ortho.hal.cts.AsyncQueueSuite;
import dev.ortho.hal.remote.ServerOptions;

/**
 * The asynchronous-queue conformance suite as remote devices answer it: a server's per-client
 * quota of operations in flight (the default, 1,024, unless a subclass's server has another), and
 * buffers that do not outlive their device (the server frees them when the device disconnects).
 */
abstract class RemoteAsyncQueueSuite extends AsyncQueueSuite {
    @Override
    protected int inFlightQuota() {
        return ServerOptions.defaults(new byte[] {1}).maxInFlight();
    }

    @Override
    protected boolean resourcesOutliveTheirDevice() {
        return false;
    }
}
