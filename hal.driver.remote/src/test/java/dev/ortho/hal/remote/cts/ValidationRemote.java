package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.remote.Loopback;
import dev.ortho.hal.remote.internal.client.RemoteDriverFactory;
import dev.ortho.hal.validation.internal.ValidatingDevice;
import dev.ortho.hal.validation.internal.ValidationWrapper;

/**
 * {@code validation+remote://127.0.0.1:PORT?token_file=…} composed by a plain {@link DriverRegistry}
 * (the remote driver plus the validation wrapper), exactly as an application would: the
 * validating wrapper forwards to a remote device on the shared loopback server.
 */
final class ValidationRemote {
    private static final DriverRegistry REGISTRY = new DriverRegistry();

    static {
        REGISTRY.register(new RemoteDriverFactory(name -> null));
        REGISTRY.registerWrapper(new ValidationWrapper());
    }

    private ValidationRemote() {}

    static Device device() {
        Device device = REGISTRY.createDevice("validation+" + Loopback.shared().uri(""));
        if (!(device instanceof ValidatingDevice)) {
            throw new AssertionError("validation+remote:// created " + device + ", not a validating device");
        }
        return device;
    }
}
