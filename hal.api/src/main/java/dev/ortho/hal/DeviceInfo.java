package dev.ortho.hal;

import java.util.Objects;

/**
 * One device a driver can create, as reported by {@link Driver#queryAvailableDevices()}: IREE's
 * {@code iree_hal_device_info_t}.
 *
 * @param id a driver-specific identifier, stable while the driver lives
 * @param path the stable path used in device URIs ({@code driver://path}); may be empty for a
 *     driver with one default device
 * @param name a human-readable name
 */
public record DeviceInfo(long id, String path, String name) {
    public DeviceInfo {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(name, "name");
    }
}
