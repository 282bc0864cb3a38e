package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.DeviceSuite;

/** The Device conformance suite on {@code validation+remote://} over TCP: the validation wrapper around a remote device. */
class ValidationRemoteDeviceTest extends DeviceSuite {
    @Override
    protected Device createDevice() {
        return ValidationRemote.device();
    }
}
