package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.CommandBufferSuite;
import dev.ortho.hal.remote.Shm;

/** The CommandBuffer conformance suite on {@code remote://shm} served by a pre-spawned child JVM (PROCESS mode). */
class RemoteShmCommandBufferTest extends CommandBufferSuite {
    @Override
    protected Device createDevice() {
        return Shm.connect("process");
    }
}
