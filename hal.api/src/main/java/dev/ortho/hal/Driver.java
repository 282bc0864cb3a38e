package dev.ortho.hal;

import java.util.List;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A created HAL driver: IREE's {@code iree_hal_driver_t}. Obtained from
 * {@link DriverRegistry#createDriver(String)}; enumerates the devices it can create.
 *
 * <p>Ownership: the caller owns the driver and must {@link #close()} it; closing a driver that
 * still has live devices leaves those devices usable until they are closed themselves.
 * Implementations are thread-safe.
 */
@ProviderType
public interface Driver extends AutoCloseable {

    /** The name and description this driver was created under. */
    DriverInfo info();

    /**
     * The devices this driver can create now, in a stable order (the first is the default).
     * May touch the system (e.g. read sysfs) but never creates devices.
     *
     * @throws dev.ortho.base.StatusException UNAVAILABLE if the driver was closed
     */
    List<DeviceInfo> queryAvailableDevices();

    /**
     * Creates the device named by {@code uri} (its path selects the device, empty for the
     * default; its parameters configure it). The caller owns the device.
     *
     * @throws dev.ortho.base.StatusException NOT_FOUND if no device has that path,
     *     INVALID_ARGUMENT naming an unknown or malformed parameter, UNAVAILABLE if the driver
     *     was closed
     */
    Device createDevice(DeviceUri uri);

    /** Releases the driver's resources. Idempotent. */
    @Override
    void close();
}
