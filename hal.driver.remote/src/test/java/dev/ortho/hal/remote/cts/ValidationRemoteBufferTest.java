package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.BufferSuite;

/** The Buffer conformance suite on {@code validation+remote://} over TCP: the validation wrapper around a remote device. */
class ValidationRemoteBufferTest extends BufferSuite {
    @Override
    protected Device createDevice() {
        return ValidationRemote.device();
    }
}
