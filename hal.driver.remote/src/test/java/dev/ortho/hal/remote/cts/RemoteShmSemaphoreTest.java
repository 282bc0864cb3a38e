package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.SemaphoreSuite;
import dev.ortho.hal.remote.Shm;

/** The Semaphore conformance suite on {@code remote://shm} served by a pre-spawned child JVM (PROCESS mode). */
class RemoteShmSemaphoreTest extends SemaphoreSuite {
    @Override
    protected Device createDevice() {
        return Shm.connect("process");
    }
}
