package dev.ortho.launcher.internal;

import dev.ortho.base.StatusException;
import dev.ortho.hal.AllocatorStatistics;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceCapability;
import dev.ortho.hal.DeviceInfo;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.Driver;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.MemoryHeap;
import dev.ortho.hal.MemoryType;
import java.util.List;

/**
 * {@code hal:dump <uri>}: creates a device, describes it in the style of IREE's
 * {@code --dump_devices} (a {@code # --device=} banner, then details), and releases it.
 */
final class DeviceDump {
    private static final String HEADER =
            "# ============================================================================";
    private static final String SEPARATOR =
            "# ===-----------------------------------------------------------------------===";
    /** Executable formats Ortho's loaders know; each is probed with {@code hal.executable.format}. */
    static final List<String> KNOWN_FORMATS = List.of("jvm-static", "vmvx-bytecode-fb");

    private DeviceDump() {}

    /**
     * Creates the device named by {@code uri} through {@code registry}, describes it and closes it.
     *
     * @throws StatusException as {@link DriverRegistry#createDevice(String)}
     */
    static String dump(DriverRegistry registry, String uri) {
        DeviceUri parsed = DeviceUri.parse(uri);
        try (Device device = registry.createDevice(uri)) {
            return describe(parsed, device);
        }
    }

    /**
     * {@code --dump_devices[=driver]}: per driver IREE's {@code # Enumerated devices for driver}
     * banner, then every device created, described and closed in turn. With no driver name,
     * drivers that cannot be created are skipped (IREE's behaviour); with one, that is an error.
     *
     * @throws StatusException from creating the named driver or any of its devices
     */
    static String dumpDevices(DriverRegistry registry, String driverName) {
        StringBuilder text = new StringBuilder();
        if (driverName == null) {
            List<DriverInfo> drivers = registry.enumerate();
            for (int i = 0; i < drivers.size(); i++) {
                if (i > 0) {
                    text.append('\n');
                }
                appendDriver(registry, drivers.get(i).name(), false, text);
            }
        } else {
            appendDriver(registry, driverName, true, text);
        }
        return text.toString();
    }

    private static void appendDriver(DriverRegistry registry, String driverName, boolean failOnError,
            StringBuilder text) {
        text.append(HEADER).append('\n')
                .append("# Enumerated devices for driver '").append(driverName).append("'\n")
                .append(HEADER).append("\n\n");
        Driver driver;
        try {
            driver = registry.createDriver(driverName);
        } catch (StatusException e) {
            if (failOnError) {
                throw e;
            }
            return; // a driver that cannot be created here has no devices to dump
        }
        try (driver) {
            for (DeviceInfo info : driver.queryAvailableDevices()) {
                DeviceUri uri = DeviceUri.parse(driverName + "://" + info.path());
                try (Device device = driver.createDevice(uri)) {
                    text.append(describe(uri, device));
                }
            }
        }
    }

    /** Describes {@code device} (borrowed), created from {@code uri}. */
    static String describe(DeviceUri uri, Device device) {
        DeviceInfo info = device.info();
        StringBuilder text = new StringBuilder();
        text.append(SEPARATOR).append('\n')
                .append("# --device=").append(uri.driverName()).append("://").append(info.path()).append('\n')
                .append("#   ").append(info.name()).append('\n')
                .append(SEPARATOR).append('\n');
        text.append("id: ").append(info.id()).append('\n');
        long capabilities = device.capabilities();
        text.append("capabilities: ").append(capabilities == 0 ? "NONE" : DeviceCapability.format(capabilities))
                .append('\n');
        text.append("queries:\n");
        query(text, device, "hal.device.id", uri.driverName());
        query(text, device, "hal.device", "concurrency");
        query(text, device, "hal.dispatch", "concurrency");
        for (String format : KNOWN_FORMATS) {
            query(text, device, "hal.executable.format", format);
        }
        List<MemoryHeap> heaps = device.allocator().heaps();
        text.append("heaps:\n");
        for (int i = 0; i < heaps.size(); i++) {
            MemoryHeap heap = heaps.get(i);
            text.append("  [").append(i).append("] type ").append(MemoryType.format(heap.type()))
                    .append("; usage ").append(BufferUsage.format(heap.allowedUsage()))
                    .append("; max allocation ").append(heap.maxAllocationSize() == Long.MAX_VALUE
                            ? "unlimited" : heap.maxAllocationSize() + "B")
                    .append("; alignment ").append(heap.minAlignment()).append("B\n");
        }
        AllocatorStatistics stats = device.allocator().statistics();
        text.append("allocator statistics:\n")
                .append(String.format("  ALL: %12dB peak / %12dB allocated / %12dB freed / %12dB live%n",
                        stats.bytesPeak(), stats.bytesAllocated(), stats.bytesFreed(), stats.bytesLive()));
        return text.toString();
    }

    private static void query(StringBuilder text, Device device, String category, String key) {
        text.append("  ").append(category).append(" :: ").append(key).append(" = ");
        try {
            text.append(device.queryI64(category, key));
        } catch (StatusException e) {
            text.append(e.code());
        }
        text.append('\n');
    }
}
