package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.BindingTableCopySuite;
import dev.ortho.hal.remote.Shm;

/** The binding-table copy (overlap) conformance suite on remote://shm served by a pre-spawned child JVM (PROCESS mode). */
class RemoteShmBindingTableCopyTest extends BindingTableCopySuite {
    @Override
    protected Device createDevice() {
        return Shm.connect("process");
    }
}
