package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.BindingTableCopySuite;
import dev.ortho.hal.remote.Loopback;

/** The binding-table copy (overlap) conformance suite on remote:// over TCP, against a loopback server serving local-sync. */
class RemoteTcpBindingTableCopyTest extends BindingTableCopySuite {
    @Override
    protected Device createDevice() {
        return Loopback.shared().connect();
    }
}
