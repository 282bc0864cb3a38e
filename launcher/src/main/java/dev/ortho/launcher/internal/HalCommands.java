package dev.ortho.launcher.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.DriverRegistry;
import java.util.List;
import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * Gogo commands in scope {@code hal}. Each returns its text; the shell prints it. Errors are
 * {@link dev.ortho.base.StatusException}s, which the console prints as {@code CODE; message}.
 */
@Component(service = HalCommands.class, property = {
    "osgi.command.scope=hal",
    "osgi.command.function=drivers",
    "osgi.command.function=devices",
    "osgi.command.function=dump"})
public final class HalCommands {
    private final DriverRegistry registry;

    @Activate
    public HalCommands(@Reference DriverRegistry registry) {
        this.registry = registry;
    }

    @Descriptor("list the available HAL drivers, one 'name: description' line each")
    public String drivers() {
        List<DriverInfo> drivers = registry.enumerate();
        if (drivers.isEmpty()) {
            return "no HAL drivers are registered";
        }
        StringBuilder text = new StringBuilder();
        for (DriverInfo driver : drivers) {
            if (!text.isEmpty()) {
                text.append('\n');
            }
            text.append(DriverListing.driverLine(driver));
        }
        return text.toString();
    }

    @Descriptor("list the devices of every HAL driver as device URIs")
    public String devices() {
        return DriverListing.devices(registry, null).stripTrailing();
    }

    @Descriptor("list the devices of one HAL driver as device URIs")
    public String devices(@Descriptor("driver name, e.g. local-task") String driverName) {
        return DriverListing.devices(registry, driverName).stripTrailing();
    }

    /** {@code hal:dump} without its argument: a status saying what is missing, not Gogo's coercion error. */
    @Descriptor("hal:dump needs a device URI")
    public String dump() {
        throw new StatusException(StatusCode.INVALID_ARGUMENT,
                "hal:dump needs a device URI (for example 'hal:dump local-sync://'; 'hal:devices' lists them)");
    }

    @Descriptor("create a HAL device by URI, print its info, queries, capabilities, heaps and "
            + "allocator statistics, then release it")
    public String dump(@Descriptor("device URI, e.g. local-sync://") String deviceUri) {
        return DeviceDump.dump(registry, deviceUri).stripTrailing();
    }
}
