package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.BufferViewSuite;
import dev.ortho.hal.remote.Shm;

/** The BufferView conformance suite on {@code remote://shm} served by a pre-spawned child JVM (PROCESS mode). */
class RemoteShmBufferViewTest extends BufferViewSuite {
    @Override
    protected Device createDevice() {
        return Shm.connect("process");
    }
}
