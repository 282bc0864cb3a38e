package dev.ortho.hal.cpu.internal.task;

import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceInfo;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.cpu.internal.driver.DefaultDeviceDriver;
import dev.ortho.hal.cpu.internal.executable.ExecutableLoaders;
import dev.ortho.hal.frontier.QueueAxes;
import java.util.Map;

/**
 * The {@code local-task} driver: one default device (empty path, or {@code 0}) whose options
 * come from the driver's defaults overridden by the URI's parameters (see
 * {@link LocalTaskOptions}). Enumerating is free; creating a device starts its executor, which
 * the device owns and stops when it is released. Thread-safe.
 */
public final class LocalTaskDriver extends DefaultDeviceDriver {
    /** The driver name and URI scheme. */
    public static final String NAME = "local-task";
    /** IREE's description of its local-task driver. */
    public static final String DESCRIPTION = "Local execution using the IREE multithreading task system";
    /** The driver as its factory lists it. */
    public static final DriverInfo INFO = new DriverInfo(NAME, DESCRIPTION);

    /**
     * Device URI parameter: the machine index (0 to 255) the device's queue axes carry, for a
     * device a server serves under that index ({@code ortho serve-device --machine_index=N}).
     * Without it the driver's axes are used ({@link QueueAxes#process()}: machine 0).
     */
    public static final String MACHINE_INDEX = "machine_index";

    /** One process-wide allocator per machine index, made at first use (axes are never reused). */
    private static final java.util.concurrent.atomic.AtomicReferenceArray<QueueAxes> MACHINES =
            new java.util.concurrent.atomic.AtomicReferenceArray<>(256);

    private final ExecutableLoaders loaders;
    private final LocalTaskOptions defaults;
    private final QueueAxes axes;
    private final LiveDevices liveDevices;

    /** A driver whose devices are torn down only by their last release (no factory tracks them). */
    public LocalTaskDriver(ExecutableLoaders loaders, LocalTaskOptions defaults, QueueAxes axes) {
        this(loaders, defaults, axes, new LiveDevices(NAME));
    }

    /**
     * @param loaders the executable loaders its devices prepare with
     * @param defaults options for devices whose URI does not override them
     * @param axes where its devices take their never-reused queue axes ({@link QueueAxes#process()}
     *     outside tests)
     * @param liveDevices the factory's live devices, which every device created joins
     */
    public LocalTaskDriver(ExecutableLoaders loaders, LocalTaskOptions defaults, QueueAxes axes,
            LiveDevices liveDevices) {
        super(INFO);
        this.loaders = loaders;
        this.defaults = defaults;
        this.axes = axes;
        this.liveDevices = liveDevices;
    }

    /**
     * @throws StatusException INVALID_ARGUMENT for unknown or malformed parameters, UNAVAILABLE if
     *     the factory was closed
     */
    @Override
    protected Device createDevice(DeviceInfo device, Map<String, String> params) {
        QueueAxes deviceAxes = axes;
        String machine = params.get(MACHINE_INDEX);
        if (machine != null) {
            deviceAxes = machineAxes(machine);
            params = new java.util.HashMap<>(params);
            params.remove(MACHINE_INDEX);
        }
        LocalTaskOptions options = defaults.with(params);
        LocalTaskDevice created = new LocalTaskDevice(device, loaders, options, deviceAxes, liveDevices);
        liveDevices.add(created);
        return created;
    }

    /**
     * The process's allocator for machine index {@code text}.
     *
     * @throws StatusException INVALID_ARGUMENT naming the value unless it is an integer in [0, 255]
     */
    static QueueAxes machineAxes(String text) {
        int machine;
        try {
            machine = Integer.parseInt(text.strip());
        } catch (NumberFormatException e) {
            machine = -1;
        }
        if (machine < 0 || machine > 255) {
            throw new StatusException(dev.ortho.base.StatusCode.INVALID_ARGUMENT, "local-task device parameter "
                    + MACHINE_INDEX + "='" + text + "' is not a machine index in [0, 255]");
        }
        QueueAxes existing = MACHINES.get(machine);
        if (existing == null) {
            QueueAxes made = new QueueAxes(new java.util.SplittableRandom().nextInt(256), machine, QueueAxes.CAPACITY);
            existing = MACHINES.compareAndExchange(machine, null, made);
            if (existing == null) {
                existing = made;
            }
        }
        return existing;
    }
}
