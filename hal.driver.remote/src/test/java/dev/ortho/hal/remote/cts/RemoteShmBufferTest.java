package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.BufferSuite;
import dev.ortho.hal.remote.Shm;

/** The Buffer conformance suite on {@code remote://shm} served by a pre-spawned child JVM (PROCESS mode). */
class RemoteShmBufferTest extends BufferSuite {
    @Override
    protected Device createDevice() {
        return Shm.connect("process");
    }
}
