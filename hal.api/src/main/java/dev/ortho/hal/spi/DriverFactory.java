package dev.ortho.hal.spi;

import dev.ortho.hal.Driver;
import dev.ortho.hal.DriverInfo;
import java.util.List;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Creates HAL drivers on demand: IREE's {@code iree_hal_driver_factory_t}. Each driver bundle
 * registers one as an OSGi service with the properties {@code hal.driver.name},
 * {@code hal.driver.description} and optionally {@code service.ranking}; plain-Java users call
 * {@link dev.ortho.hal.DriverRegistry#register(DriverFactory, int)}.
 *
 * <p>Cheap enumeration, expensive creation: {@link #enumerate()} must not start threads, open
 * sockets or allocate device memory, because registries call it to list and to match names.
 * Implementations are thread-safe; {@link #enumerate()} returns the same list for the factory's
 * whole registration.
 */
@ProviderType
public interface DriverFactory {

    /** The drivers this factory can create. Cheap and side-effect free. */
    List<DriverInfo> enumerate();

    /**
     * Creates the driver named {@code driverName} (one of {@link #enumerate()}). May be slow: this
     * is where a driver probes hardware, starts threads or connects. The caller owns the result.
     *
     * @throws dev.ortho.base.StatusException NOT_FOUND if this factory has no such driver,
     *     UNAVAILABLE if the driver cannot be created on this system now
     */
    Driver createDriver(String driverName);
}
