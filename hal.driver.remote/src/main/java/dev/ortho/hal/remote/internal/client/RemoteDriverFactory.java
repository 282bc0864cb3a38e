package dev.ortho.hal.remote.internal.client;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Driver;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.spi.DriverFactory;
import java.util.List;
import java.util.function.Function;

/**
 * Creates the {@code remote} driver. Enumeration touches nothing; connections are made per device.
 * Plain Java: {@code registry.register(new RemoteDriverFactory(System::getenv))}. Thread-safe.
 */
public final class RemoteDriverFactory implements DriverFactory {
    private final Function<String, String> environment;

    /** @param environment environment lookup for {@link RemoteDriver#TOKEN_ENV} */
    public RemoteDriverFactory(Function<String, String> environment) {
        this.environment = environment;
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
        return new RemoteDriver(environment);
    }
}
