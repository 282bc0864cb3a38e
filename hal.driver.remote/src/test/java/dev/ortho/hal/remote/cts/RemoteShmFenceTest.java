package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.FenceSuite;
import dev.ortho.hal.remote.Shm;

/** The Fence conformance suite on {@code remote://shm} served by a pre-spawned child JVM (PROCESS mode). */
class RemoteShmFenceTest extends FenceSuite {
    @Override
    protected Device createDevice() {
        return Shm.connect("process");
    }
}
