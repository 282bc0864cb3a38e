package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.BindingTableCopySuite;

/** The binding-table copy (overlap) conformance suite on local-task (3 queues, 2 workers). */
class LocalTaskBindingTableCopyTest extends BindingTableCopySuite {
    @Override
    protected Device createDevice() {
        return LocalTask.device();
    }
}
