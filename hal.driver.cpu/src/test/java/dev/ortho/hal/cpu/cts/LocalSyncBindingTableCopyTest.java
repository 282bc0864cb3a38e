package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.BindingTableCopySuite;

/** The binding-table copy (overlap) conformance suite on local-sync. */
class LocalSyncBindingTableCopyTest extends BindingTableCopySuite {
    @Override
    protected Device createDevice() {
        return LocalSync.device();
    }
}
