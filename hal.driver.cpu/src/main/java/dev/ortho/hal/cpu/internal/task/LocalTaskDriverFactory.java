package dev.ortho.hal.cpu.internal.task;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Driver;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.cpu.CpuDriverFactory;
import dev.ortho.hal.cpu.internal.driver.DefaultDeviceDriver;
import dev.ortho.hal.cpu.internal.executable.ExecutableLoaders;
import dev.ortho.hal.frontier.QueueAxes;
import java.util.List;

/**
 * Creates {@link LocalTaskDriver}s sharing one {@link ExecutableLoaders} and one set of
 * default options. Plain Java: use {@code dev.ortho.hal.cpu.CpuDevices}.
 *
 * <p>The factory keeps track of the devices its drivers created until they are torn down
 * ({@link #liveDevices()}); {@link #close()} tears them all down (the driver bundle stopping).
 * Thread-safe.
 */
public final class LocalTaskDriverFactory implements CpuDriverFactory {
    private final ExecutableLoaders loaders;
    private final LocalTaskOptions defaults;
    private final QueueAxes axes;
    private final LiveDevices liveDevices = new LiveDevices(LocalTaskDriver.NAME);
    private volatile boolean closed;

    public LocalTaskDriverFactory(ExecutableLoaders loaders, LocalTaskOptions defaults) {
        this(loaders, defaults, QueueAxes.process());
    }

    /** @param axes where its devices take their queue axes (a server's machine index, for one) */
    public LocalTaskDriverFactory(ExecutableLoaders loaders, LocalTaskOptions defaults, QueueAxes axes) {
        this.loaders = loaders;
        this.defaults = defaults;
        this.axes = axes;
    }

    @Override
    public List<DriverInfo> enumerate() {
        return List.of(LocalTaskDriver.INFO);
    }

    /** @throws StatusException NOT_FOUND for another name, UNAVAILABLE once closed */
    @Override
    public Driver createDriver(String driverName) {
        DefaultDeviceDriver.requireDriverName(LocalTaskDriver.INFO, driverName);
        if (closed) {
            throw new StatusException(StatusCode.UNAVAILABLE, "driver '" + LocalTaskDriver.NAME + "' was stopped");
        }
        return new LocalTaskDriver(loaders, defaults, axes, liveDevices);
    }

    /**
     * Devices created by this factory's drivers and not torn down yet: each holds an executor and
     * its worker threads. A diagnostic snapshot (leak tests, shell statistics).
     */
    public int liveDevices() {
        return liveDevices.count();
    }

    /**
     * Off-heap bytes the allocators of this factory's devices hold now (buffers not freed yet, also
     * those outliving their device). A diagnostic snapshot.
     */
    public long liveBytes() {
        return liveDevices.liveBytes();
    }

    /**
     * Tears down every live device at once, whoever holds it (their unfinished operations fail with
     * UNAVAILABLE, their workers exit), and refuses new drivers and devices with UNAVAILABLE.
     * Returns when the devices are torn down. Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        liveDevices.close();
    }
}
