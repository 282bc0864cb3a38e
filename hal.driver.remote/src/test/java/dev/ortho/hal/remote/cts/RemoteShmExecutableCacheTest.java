package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cts.ExecutableCacheSuite;
import dev.ortho.hal.remote.Loopback;
import dev.ortho.hal.remote.Shm;

/** The ExecutableCache conformance suite on {@code remote://shm} served by a pre-spawned child JVM (PROCESS mode). */
class RemoteShmExecutableCacheTest extends ExecutableCacheSuite {
    @Override
    protected Device createDevice() {
        return Shm.connect("process");
    }

    @Override
    protected ExecutableParams testExecutable() {
        return Loopback.testExecutable();
    }
}
