package dev.ortho.hal.cpu.internal.task;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceInfo;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.Driver;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.cpu.internal.executable.KernelLibraryRegistry;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@code local-task} driver: one default device (empty path, or {@code 0}) whose options
 * come from the driver's defaults overridden by the URI's parameters (see
 * {@link LocalTaskOptions}). Enumerating is free; creating a device starts its executor, which
 * the device owns and stops when it is released. Thread-safe.
 */
public final class LocalTaskDriver implements Driver {
    /** The driver name and URI scheme. */
    public static final String NAME = "local-task";
    /** IREE's description of its local-task driver. */
    public static final String DESCRIPTION = "Local execution using the IREE multithreading task system";
    /** The driver as its factory lists it. */
    public static final DriverInfo INFO = new DriverInfo(NAME, DESCRIPTION);
    private static final DeviceInfo DEVICE = new DeviceInfo(0, "", "local-task");

    private final KernelLibraryRegistry libraries;
    private final LocalTaskOptions defaults;
    private final AtomicInteger ordinals;
    private volatile boolean closed;

    /**
     * @param libraries the kernel libraries its devices resolve {@code jvm-static} executables against
     * @param defaults options for devices whose URI does not override them
     * @param ordinals shared device counter (keeps queue axes unique across drivers of one factory)
     */
    public LocalTaskDriver(KernelLibraryRegistry libraries, LocalTaskOptions defaults, AtomicInteger ordinals) {
        this.libraries = libraries;
        this.defaults = defaults;
        this.ordinals = ordinals;
    }

    @Override
    public DriverInfo info() {
        return INFO;
    }

    @Override
    public List<DeviceInfo> queryAvailableDevices() {
        requireOpen();
        return List.of(DEVICE);
    }

    /**
     * @throws StatusException NOT_FOUND for a path other than the default device;
     *     INVALID_ARGUMENT for unknown or malformed parameters
     */
    @Override
    public Device createDevice(DeviceUri uri) {
        requireOpen();
        if (uri == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "local-task device URI is null");
        }
        if (!uri.path().isEmpty() && !uri.path().equals("0")) {
            throw new StatusException(StatusCode.NOT_FOUND, "local-task has no device '" + uri.path()
                    + "' (its only device is the default: empty path or '0')");
        }
        LocalTaskOptions options = defaults.with(uri.params());
        return new LocalTaskDevice(DEVICE, libraries, options, ordinals.getAndIncrement());
    }

    @Override
    public void close() {
        closed = true;
    }

    private void requireOpen() {
        if (closed) {
            throw new StatusException(StatusCode.UNAVAILABLE, "local-task driver was closed");
        }
    }
}
