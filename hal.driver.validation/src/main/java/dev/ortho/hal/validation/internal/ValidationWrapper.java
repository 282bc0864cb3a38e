package dev.ortho.hal.validation.internal;

import dev.ortho.hal.Device;
import dev.ortho.hal.spi.DeviceWrapper;

/**
 * The {@code validation} device wrapper: {@code validation+<driver>://…} wraps the driver's device
 * in a {@link ValidatingDevice}. Plain Java: {@code registry.registerWrapper(new ValidationWrapper())}.
 * Stateless and thread-safe.
 */
public final class ValidationWrapper implements DeviceWrapper {
    /** The name used before {@code +} in device URIs and as {@code hal.wrapper.name}. */
    public static final String NAME = "validation";

    @Override
    public String name() {
        return NAME;
    }

    /** Wraps {@code inner}; the returned device owns it (closing it closes {@code inner}). */
    @Override
    public Device wrap(Device inner) {
        return new ValidatingDevice(inner);
    }

    @Override
    public String toString() {
        return "validation device wrapper";
    }
}
