package dev.ortho.hal.cpu.internal.driver;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceInfo;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.Driver;
import dev.ortho.hal.DriverInfo;
import java.util.List;
import java.util.Map;

/**
 * A {@link Driver} with exactly one device, the default one (device id 0, empty path, also
 * addressed as {@code 0}), as the {@code local-sync} and {@code local-task} drivers have: lists
 * it, checks URIs addressed to it and refuses every call once closed. Subclasses create the
 * device from the URI's parameters.
 *
 * <p>Thread-safe; closing has no effect on devices already created.
 */
public abstract class DefaultDeviceDriver implements Driver {
    private final DriverInfo info;
    private final DeviceInfo device;
    private volatile boolean closed;

    /** @param info the driver's name (also its device's path-less name) and description */
    protected DefaultDeviceDriver(DriverInfo info) {
        this.info = info;
        this.device = new DeviceInfo(0, "", info.name());
    }

    /**
     * The check of a factory that creates only this kind of driver.
     *
     * @throws StatusException NOT_FOUND unless {@code requested} is {@code info}'s name
     */
    public static void requireDriverName(DriverInfo info, String requested) {
        if (!info.name().equals(requested)) {
            throw new StatusException(StatusCode.NOT_FOUND, "driver factory '" + info.name()
                    + "' cannot create driver '" + requested + "'");
        }
    }

    @Override
    public DriverInfo info() {
        return info;
    }

    @Override
    public List<DeviceInfo> queryAvailableDevices() {
        requireOpen();
        return List.of(device);
    }

    /**
     * @throws StatusException UNAVAILABLE if the driver was closed; INVALID_ARGUMENT for a null URI;
     *     NOT_FOUND for a path other than the default device; as {@link #createDevice(DeviceInfo, Map)}
     */
    @Override
    public final Device createDevice(DeviceUri uri) {
        requireOpen();
        if (uri == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, info.name() + " device URI is null");
        }
        if (!uri.path().isEmpty() && !uri.path().equals("0")) {
            throw new StatusException(StatusCode.NOT_FOUND, info.name() + " has no device '" + uri.path()
                    + "' (its only device is the default: empty path or '0')");
        }
        return createDevice(device, uri.params());
    }

    /**
     * Creates the default device; the caller owns it.
     *
     * @param device the device's info
     * @param params the URI's parameters (not null)
     * @throws StatusException INVALID_ARGUMENT for unknown or malformed parameters
     */
    protected abstract Device createDevice(DeviceInfo device, Map<String, String> params);

    @Override
    public void close() {
        closed = true;
    }

    private void requireOpen() {
        if (closed) {
            throw new StatusException(StatusCode.UNAVAILABLE, info.name() + " driver was closed");
        }
    }
}
