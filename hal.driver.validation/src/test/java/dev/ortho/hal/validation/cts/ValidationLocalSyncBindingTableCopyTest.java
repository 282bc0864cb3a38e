package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.BindingTableCopySuite;

/** The binding-table copy (overlap) conformance suite on validation+local-sync. */
class ValidationLocalSyncBindingTableCopyTest extends BindingTableCopySuite {
    @Override
    protected Device createDevice() {
        return ValidationLocalSync.device();
    }
}
