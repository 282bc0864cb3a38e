package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.CommandBufferSuite;

/** The CommandBuffer conformance suite on {@code validation+remote://} over TCP: the validation wrapper around a remote device. */
class ValidationRemoteCommandBufferTest extends CommandBufferSuite {
    @Override
    protected Device createDevice() {
        return ValidationRemote.device();
    }
}
