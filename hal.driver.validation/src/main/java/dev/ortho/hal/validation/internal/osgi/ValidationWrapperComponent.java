package dev.ortho.hal.validation.internal.osgi;

import dev.ortho.hal.Device;
import dev.ortho.hal.spi.DeviceWrapper;
import dev.ortho.hal.validation.internal.ValidationWrapper;
import org.osgi.service.component.annotations.Component;

/**
 * Thin OSGi adapter: publishes the {@code validation} {@link DeviceWrapper} service
 * ({@code hal.wrapper.name=validation}), which the driver registry tracks for
 * {@code validation+<driver>://} URIs and its "wrap every device" configuration.
 */
@Component(service = DeviceWrapper.class, property = "hal.wrapper.name=" + ValidationWrapper.NAME)
public final class ValidationWrapperComponent implements DeviceWrapper {
    private final ValidationWrapper wrapper = new ValidationWrapper();

    @Override
    public String name() {
        return wrapper.name();
    }

    @Override
    public Device wrap(Device inner) {
        return wrapper.wrap(inner);
    }
}
