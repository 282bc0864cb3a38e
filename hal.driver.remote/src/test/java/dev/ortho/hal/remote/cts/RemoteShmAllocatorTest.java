package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.AllocatorSuite;
import dev.ortho.hal.remote.Shm;

/** The Allocator conformance suite on {@code remote://shm} served by a pre-spawned child JVM (PROCESS mode). */
class RemoteShmAllocatorTest extends AllocatorSuite {
    @Override
    protected Device createDevice() {
        return Shm.connect("process");
    }
}
