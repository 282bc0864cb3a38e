package dev.ortho.hal.cpu.internal.osgi;

import dev.ortho.hal.Driver;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.cpu.internal.sync.LocalSyncDriver;
import dev.ortho.hal.cpu.internal.sync.LocalSyncDriverFactory;
import dev.ortho.hal.cpu.kernel.KernelLibrary;
import dev.ortho.hal.spi.DriverFactory;
import dev.ortho.vm.spi.InstructionExtension;
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
 * devices already created keep theirs) and keeps its kernel
 * library registry in step with the {@link KernelLibrary} services and its VMVX loader in step
 * with the {@link InstructionExtension} services (dynamic, greedy), so executables prepared later
 * see libraries and extensions installed at runtime.
 */
@Component(service = DriverFactory.class, configurationPid = "dev.ortho.hal.driver.local_sync",
        configurationPolicy = ConfigurationPolicy.OPTIONAL, property = {
            "hal.driver.name=" + LocalSyncDriver.NAME,
            "hal.driver.description=" + LocalSyncDriver.DESCRIPTION})
@Designate(ocd = LocalSyncConfig.class)
public final class LocalSyncDriverComponent implements DriverFactory {
    private final RuntimeLibraries libraries;
    private final LocalSyncDriverFactory factory;

    /** Reads how VMVX dispatch functions run from {@code config}. */
    @Activate
    public LocalSyncDriverComponent(LocalSyncConfig config) {
        this.libraries = new RuntimeLibraries(LocalSyncDriverComponent.class, config.vmvx__compile());
        this.factory = new LocalSyncDriverFactory(libraries.registry());
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindLibrary(KernelLibrary library) {
        libraries.addLibrary(library);
    }

    void unbindLibrary(KernelLibrary library) {
        libraries.removeLibrary(library);
    }

    /** Instruction extensions (ExtF32, ExtF64, …) that VMVX executables prepared later may use. */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindExtension(InstructionExtension extension) {
        libraries.addExtension(extension);
    }

    void unbindExtension(InstructionExtension extension) {
        libraries.removeExtension(extension);
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
