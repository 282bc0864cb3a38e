package dev.ortho.hal.cpu.internal.osgi;

import dev.ortho.hal.cpu.internal.sync.LocalSyncDriver;
import dev.ortho.hal.cpu.internal.sync.LocalSyncDriverFactory;
import dev.ortho.hal.cpu.kernel.ExecutableLoader;
import dev.ortho.hal.spi.DriverFactory;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.metatype.annotations.Designate;

/**
 * Thin OSGi adapter: publishes the {@code local-sync} {@link DriverFactory} with the options of its
 * configuration (PID {@code dev.ortho.hal.driver.local_sync}; a change re-creates the component,
 * devices already created keep theirs) and keeps its devices' executable loaders in step with
 * the {@link ExecutableLoader} services ({@link LoaderTrackingDriverComponent}).
 */
@Component(service = DriverFactory.class, configurationPid = "dev.ortho.hal.driver.local_sync",
        configurationPolicy = ConfigurationPolicy.OPTIONAL, property = {
            "hal.driver.name=" + LocalSyncDriver.NAME,
            "hal.driver.description=" + LocalSyncDriver.DESCRIPTION})
@Designate(ocd = LocalSyncConfig.class)
public final class LocalSyncDriverComponent extends LoaderTrackingDriverComponent<LocalSyncDriverFactory> {
    /** Reads how VMVX dispatch functions run from {@code config}. */
    @Activate
    public LocalSyncDriverComponent(LocalSyncConfig config) {
        super(config.vmvx__compile(), LocalSyncDriverFactory::new);
    }
}
