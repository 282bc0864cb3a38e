package dev.ortho.hal.spi;

import dev.ortho.hal.Device;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Wraps devices to add behaviour around every HAL call (validation, tracing, remoting):
 * registered as an OSGi service with property {@code hal.wrapper.name} (e.g. {@code validation}).
 * A device URI {@code <wrapper>+<driver>://…} creates the driver's device and wraps it.
 *
 * <p>A wrapper takes ownership of {@code inner}: closing the wrapped device closes it. Wrappers
 * build on {@link ForwardingDevice} (and the {@code Forwarding…} classes for the objects a device
 * hands out) rather than subclassing a driver's device. Plain Java: register with
 * {@link dev.ortho.hal.DriverRegistry#registerWrapper}. Thread-safe.
 */
@ProviderType
public interface DeviceWrapper {

    /** The name used before {@code +} in device URIs. */
    String name();

    /** Returns a device forwarding to {@code inner} with this wrapper's behaviour added. */
    Device wrap(Device inner);
}
