package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.QueueSuite;
import dev.ortho.hal.remote.Shm;

/** The Queue conformance suite on {@code remote://shm} served by a pre-spawned child JVM (PROCESS mode). */
class RemoteShmQueueTest extends QueueSuite {
    @Override
    protected Device createDevice() {
        return Shm.connect("process");
    }
}
