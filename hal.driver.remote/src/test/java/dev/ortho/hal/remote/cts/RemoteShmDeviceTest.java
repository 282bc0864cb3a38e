package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.DeviceSuite;
import dev.ortho.hal.remote.Shm;

/** The Device conformance suite on {@code remote://shm} served by a pre-spawned child JVM (PROCESS mode). */
class RemoteShmDeviceTest extends DeviceSuite {
    @Override
    protected Device createDevice() {
        return Shm.connect("process");
    }
}
