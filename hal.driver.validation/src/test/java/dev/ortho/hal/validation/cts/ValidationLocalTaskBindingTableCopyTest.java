package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.BindingTableCopySuite;

/** The binding-table copy (overlap) conformance suite on validation+local-task. */
class ValidationLocalTaskBindingTableCopyTest extends BindingTableCopySuite {
    @Override
    protected Device createDevice() {
        return ValidationLocalTask.device();
    }
}
