package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.remote.Shm;

/**
 * The asynchronous-queue conformance suite on {@code remote://shm} served by a pre-spawned child
 * JVM (PROCESS mode), whose sessions have the default per-client quota of 1,024 operations in
 * flight: the suite's 10,000-operation pipeline checks that the worker refuses past the quota.
 */
class RemoteShmAsyncQueueTest extends RemoteAsyncQueueSuite {
    @Override
    protected Device createDevice() {
        return Shm.connect("process");
    }
}
