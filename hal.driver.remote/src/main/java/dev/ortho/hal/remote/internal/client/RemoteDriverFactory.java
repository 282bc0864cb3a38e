package dev.ortho.hal.remote.internal.client;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Driver;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.remote.ShmWorkerLauncher;
import dev.ortho.hal.remote.internal.shm.ShmPools;
import dev.ortho.hal.spi.DriverFactory;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Creates the {@code remote} driver. Enumeration touches nothing; connections are made per device,
 * and shared-memory worker pools are built on first use and kept (warm) until {@link #close()}.
 * Plain Java: {@code registry.register(new RemoteDriverFactory(System::getenv))}. Thread-safe.
 */
public final class RemoteDriverFactory implements DriverFactory, AutoCloseable {
    private final Function<String, String> environment;
    private final ShmPools pools;

    /** @param environment environment lookup for {@link RemoteDriver#TOKEN_ENV} */
    public RemoteDriverFactory(Function<String, String> environment) {
        this(environment, () -> null);
    }

    /**
     * @param environment environment lookup for {@link RemoteDriver#TOKEN_ENV}
     * @param workerLauncher the host's launcher for {@code remote://shm?device=URI} workers, or
     *     null while there is none (asked when a pool is built)
     */
    public RemoteDriverFactory(Function<String, String> environment, Supplier<ShmWorkerLauncher> workerLauncher) {
        this.environment = environment;
        this.pools = new ShmPools(workerLauncher);
    }

    @Override
    public List<DriverInfo> enumerate() {
        return List.of(RemoteDriver.INFO);
    }

    @Override
    public Driver createDriver(String driverName) {
        if (!RemoteDriver.NAME.equals(driverName)) {
            throw new StatusException(StatusCode.NOT_FOUND, "driver factory '" + RemoteDriver.NAME
                    + "' cannot create driver '" + driverName + "'");
        }
        return new RemoteDriver(environment, pools, false);
    }

    /** Stops the shared-memory workers this factory spawned (devices in use keep theirs until closed). */
    @Override
    public void close() {
        pools.close();
    }
}
