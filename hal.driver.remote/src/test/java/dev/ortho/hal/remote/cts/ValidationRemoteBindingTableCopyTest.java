package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.BindingTableCopySuite;

/** The binding-table copy (overlap) conformance suite on validation+remote:// over TCP. */
class ValidationRemoteBindingTableCopyTest extends BindingTableCopySuite {
    @Override
    protected Device createDevice() {
        return ValidationRemote.device();
    }
}
