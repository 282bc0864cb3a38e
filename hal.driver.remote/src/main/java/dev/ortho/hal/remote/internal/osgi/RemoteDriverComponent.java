package dev.ortho.hal.remote.internal.osgi;

import dev.ortho.hal.Driver;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.remote.internal.client.RemoteDriver;
import dev.ortho.hal.remote.internal.client.RemoteDriverFactory;
import dev.ortho.hal.spi.DriverFactory;
import java.util.List;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/** Thin OSGi adapter: publishes the {@code remote} {@link DriverFactory}. */
@Component(service = DriverFactory.class, property = {
        "hal.driver.name=" + RemoteDriver.NAME,
        "hal.driver.description=" + RemoteDriver.DESCRIPTION})
public final class RemoteDriverComponent implements DriverFactory {
    private final RemoteDriverFactory factory = new RemoteDriverFactory(System::getenv);

    @Override
    public List<DriverInfo> enumerate() {
        return factory.enumerate();
    }

    @Override
    public Driver createDriver(String driverName) {
        return factory.createDriver(driverName);
    }

    /** Stops idle shared-memory workers when the bundle stops. */
    @Deactivate
    void deactivate() {
        factory.close();
    }
}
