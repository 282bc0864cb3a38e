package dev.ortho.hal.cpu.internal.sync;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceInfo;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.Driver;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.cpu.internal.executable.KernelLibraryRegistry;
import java.util.List;

/**
 * The {@code local-sync} driver: one default device (empty path, or {@code 0}), no parameters.
 * Enumerating is free; creating a device allocates nothing until buffers are allocated.
 * Thread-safe.
 */
public final class LocalSyncDriver implements Driver {
    /** The driver name and URI scheme. */
    public static final String NAME = "local-sync";
    /** IREE's description of its local-sync driver. */
    public static final String DESCRIPTION = "Local execution using a lightweight inline synchronous queue";
    /** The driver as its factory lists it. */
    public static final DriverInfo INFO = new DriverInfo(NAME, DESCRIPTION);
    private static final DeviceInfo DEVICE = new DeviceInfo(0, "", "local-sync");

    private final KernelLibraryRegistry libraries;
    private volatile boolean closed;

    /** @param libraries the kernel libraries its devices resolve {@code jvm-static} executables against */
    public LocalSyncDriver(KernelLibraryRegistry libraries) {
        this.libraries = libraries;
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

    @Override
    public Device createDevice(DeviceUri uri) {
        requireOpen();
        if (uri == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "local-sync device URI is null");
        }
        if (!uri.path().isEmpty() && !uri.path().equals("0")) {
            throw new StatusException(StatusCode.NOT_FOUND, "local-sync has no device '" + uri.path()
                    + "' (its only device is the default: empty path or '0')");
        }
        if (!uri.params().isEmpty()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "local-sync device parameter(s) "
                    + uri.params().keySet() + " are unknown (it takes none)");
        }
        return new LocalSyncDevice(DEVICE, libraries);
    }

    @Override
    public void close() {
        closed = true;
    }

    private void requireOpen() {
        if (closed) {
            throw new StatusException(StatusCode.UNAVAILABLE, "local-sync driver was closed");
        }
    }
}
