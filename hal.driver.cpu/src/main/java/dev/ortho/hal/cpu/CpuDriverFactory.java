package dev.ortho.hal.cpu;

import dev.ortho.hal.spi.DriverFactory;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A {@code local-task} driver factory built in plain Java ({@link CpuDrivers.Builder#localTaskFactory()}):
 * a {@link DriverFactory} that keeps track of the devices its drivers create until they are torn
 * down, and tears them all down when closed (what the driver bundle does when it stops).
 * Thread-safe.
 */
@ProviderType
public interface CpuDriverFactory extends DriverFactory, AutoCloseable {

    /**
     * Devices created through this factory and not torn down yet: each holds an executor and its
     * worker threads. A diagnostic snapshot (leak tests, statistics).
     */
    int liveDevices();

    /**
     * Off-heap bytes the allocators of this factory's devices hold now (buffers not freed yet, also
     * those outliving their device). A diagnostic snapshot.
     */
    long liveBytes();

    /**
     * Tears down every live device at once, whoever holds it (their unfinished operations fail with
     * UNAVAILABLE, their worker threads exit), and refuses new drivers and devices with UNAVAILABLE.
     * Returns when the devices are torn down. Idempotent.
     */
    @Override
    void close();
}
