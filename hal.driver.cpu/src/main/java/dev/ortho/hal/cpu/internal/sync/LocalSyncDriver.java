package dev.ortho.hal.cpu.internal.sync;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceInfo;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.cpu.internal.driver.DefaultDeviceDriver;
import dev.ortho.hal.cpu.internal.executable.ExecutableLoaders;
import dev.ortho.hal.cpu.internal.vmvx.VmvxLoader;
import java.util.Map;

/**
 * The {@code local-sync} driver: one default device (empty path, or {@code 0}); its one parameter
 * is {@value VmvxLoader#COMPILE_OPTION} ({@code off}/{@code lazy}/{@code eager}: how VMVX dispatch
 * functions run; default: as the VMVX loader says), e.g. {@code local-sync://?vmvx_compile=off}.
 * Enumerating is free; creating a device allocates nothing until buffers are allocated.
 * Thread-safe.
 */
public final class LocalSyncDriver extends DefaultDeviceDriver {
    /** The driver name and URI scheme. */
    public static final String NAME = "local-sync";
    /** IREE's description of its local-sync driver. */
    public static final String DESCRIPTION = "Local execution using a lightweight inline synchronous queue";
    /** The driver as its factory lists it. */
    public static final DriverInfo INFO = new DriverInfo(NAME, DESCRIPTION);

    private final ExecutableLoaders loaders;

    /** @param loaders the executable loaders its devices prepare with */
    public LocalSyncDriver(ExecutableLoaders loaders) {
        super(INFO);
        this.loaders = loaders;
    }

    /** @throws StatusException INVALID_ARGUMENT for an unknown parameter or a malformed value */
    @Override
    protected Device createDevice(DeviceInfo device, Map<String, String> params) {
        for (String key : params.keySet()) {
            if (!key.equals(VmvxLoader.COMPILE_OPTION)) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "local-sync device parameter '" + key
                        + "' is unknown (known: " + VmvxLoader.COMPILE_OPTION + ")");
            }
        }
        String mode = params.get(VmvxLoader.COMPILE_OPTION);
        return new LocalSyncDevice(device, loaders,
                mode == null ? null : VmvxLoader.parseKernelExecution("local-sync device parameter", mode));
    }
}
