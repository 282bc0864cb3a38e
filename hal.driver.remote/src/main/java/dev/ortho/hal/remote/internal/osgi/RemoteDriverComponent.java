package dev.ortho.hal.remote.internal.osgi;

import dev.ortho.hal.Driver;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.remote.ShmWorkerLauncher;
import dev.ortho.hal.remote.internal.client.RemoteDriver;
import dev.ortho.hal.remote.internal.client.RemoteDriverFactory;
import dev.ortho.hal.spi.DriverFactory;
import java.util.List;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * Thin OSGi adapter: publishes the {@code remote} {@link DriverFactory}. A host's
 * {@link ShmWorkerLauncher} service (the launcher's, in {@code ortho.jar}) makes
 * {@code remote://shm?device=URI} available: bundles are not on the JVM class path, so a plain
 * {@code java -cp} child could not load them.
 */
@Component(service = DriverFactory.class, property = {
        "hal.driver.name=" + RemoteDriver.NAME,
        "hal.driver.description=" + RemoteDriver.DESCRIPTION})
public final class RemoteDriverComponent implements DriverFactory {
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile ShmWorkerLauncher workerLauncher;

    private final RemoteDriverFactory factory = new RemoteDriverFactory(System::getenv, () -> workerLauncher);

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
