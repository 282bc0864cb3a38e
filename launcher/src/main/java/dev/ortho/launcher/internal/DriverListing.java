package dev.ortho.launcher.internal;

import dev.ortho.base.StatusException;
import dev.ortho.hal.DeviceInfo;
import dev.ortho.hal.Driver;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.DriverRegistry;
import java.util.List;

/** Driver and device listings in the exact text format of IREE's tools ({@code device_util.c}). */
final class DriverListing {
    private static final String HEADER =
            "# ============================================================================";

    private DriverListing() {}

    /** {@code --list_drivers}: IREE's banner, then {@code %16s: %s} per driver. */
    static String drivers(List<DriverInfo> drivers) {
        StringBuilder text = new StringBuilder();
        text.append(HEADER).append('\n')
                .append("# Available HAL drivers\n")
                .append(HEADER).append('\n')
                .append("# Use --list_devices={driver name} to enumerate available devices.\n\n");
        for (DriverInfo driver : drivers) {
            text.append(driverLine(driver)).append('\n');
        }
        return text.toString();
    }

    /** One driver as IREE prints it: the name right-aligned in 16 columns, then the description. */
    static String driverLine(DriverInfo driver) {
        return String.format("%16s: %s", driver.name(), driver.description());
    }

    /**
     * {@code --list_devices[=driver]}: one {@code driver://path} line per device. With no driver
     * name, drivers that fail to create are skipped (IREE's behaviour); with a name, the failure
     * is the caller's error.
     */
    static String devices(DriverRegistry registry, String driverName) {
        StringBuilder text = new StringBuilder();
        if (driverName == null || driverName.isEmpty()) {
            for (DriverInfo info : registry.enumerate()) {
                try {
                    appendDevices(registry, info.name(), text);
                } catch (StatusException skipped) {
                    // a driver that cannot be created here has no devices to list
                }
            }
        } else {
            appendDevices(registry, driverName, text);
        }
        return text.toString();
    }

    private static void appendDevices(DriverRegistry registry, String driverName, StringBuilder text) {
        try (Driver driver = registry.createDriver(driverName)) {
            for (DeviceInfo device : driver.queryAvailableDevices()) {
                text.append(driverName).append("://").append(device.path()).append('\n');
            }
        }
    }
}
