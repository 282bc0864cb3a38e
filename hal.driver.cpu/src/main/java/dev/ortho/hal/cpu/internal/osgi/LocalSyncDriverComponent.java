package dev.ortho.hal.cpu.internal.osgi;

import dev.ortho.hal.Driver;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.cpu.internal.sync.LocalSyncDriver;
import dev.ortho.hal.cpu.internal.sync.LocalSyncDriverFactory;
import dev.ortho.hal.cpu.kernel.ExecutableLoader;
import dev.ortho.hal.spi.DriverFactory;
import java.util.List;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.Designate;

/**
 * Thin OSGi adapter: publishes the {@code local-sync} {@link DriverFactory} with the options of its
 * configuration (PID {@code dev.ortho.hal.driver.local_sync}; a change re-creates the component,
 * devices already created keep theirs) and keeps its devices' executable loaders in step with
 * the {@link ExecutableLoader} services (dynamic, greedy): a loader bundle installed at runtime
 * adds its formats to every device at once, and they go away with it.
 */
@Component(service = DriverFactory.class, configurationPid = "dev.ortho.hal.driver.local_sync",
        configurationPolicy = ConfigurationPolicy.OPTIONAL, property = {
            "hal.driver.name=" + LocalSyncDriver.NAME,
            "hal.driver.description=" + LocalSyncDriver.DESCRIPTION})
@Designate(ocd = LocalSyncConfig.class)
public final class LocalSyncDriverComponent implements DriverFactory {
    private final RuntimeLoaders loaders;
    private final LocalSyncDriverFactory factory;

    /** Reads how VMVX dispatch functions run from {@code config}. */
    @Activate
    public LocalSyncDriverComponent(LocalSyncConfig config) {
        this.loaders = new RuntimeLoaders(config.vmvx__compile());
        this.factory = new LocalSyncDriverFactory(loaders.loaders());
    }

    /** The executable loaders (vmvx-bytecode-fb, jvm-static, those of other bundles) its devices prepare with. */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindLoader(ExecutableLoader loader) {
        loaders.addLoader(loader);
    }

    void unbindLoader(ExecutableLoader loader) {
        loaders.removeLoader(loader);
    }

    @Override
    public List<DriverInfo> enumerate() {
        return factory.enumerate();
    }

    @Override
    public Driver createDriver(String driverName) {
        return factory.createDriver(driverName);
    }
}
