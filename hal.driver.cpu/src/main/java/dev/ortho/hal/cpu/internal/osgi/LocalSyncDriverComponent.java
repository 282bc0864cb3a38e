package dev.ortho.hal.cpu.internal.osgi;

import dev.ortho.hal.Driver;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.cpu.internal.executable.KernelLibraryRegistry;
import dev.ortho.hal.cpu.internal.sync.LocalSyncDriver;
import dev.ortho.hal.cpu.internal.sync.LocalSyncDriverFactory;
import dev.ortho.hal.cpu.internal.vmvx.VmvxLoader;
import dev.ortho.hal.cpu.kernel.KernelLibrary;
import dev.ortho.hal.spi.DriverFactory;
import dev.ortho.vm.Instance;
import dev.ortho.vm.spi.InstructionExtension;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thin OSGi adapter: publishes the {@code local-sync} {@link DriverFactory} and keeps its kernel
 * library registry in step with the {@link KernelLibrary} services and its VMVX loader in step
 * with the {@link InstructionExtension} services (dynamic, greedy), so executables prepared later
 * see libraries and extensions installed at runtime.
 */
@Component(service = DriverFactory.class, property = {
        "hal.driver.name=" + LocalSyncDriver.NAME,
        "hal.driver.description=" + LocalSyncDriver.DESCRIPTION})
public final class LocalSyncDriverComponent implements DriverFactory {
    private static final Logger LOG = LoggerFactory.getLogger(LocalSyncDriverComponent.class);

    private final List<InstructionExtension> extensions = new CopyOnWriteArrayList<>();
    private final KernelLibraryRegistry libraries = new KernelLibraryRegistry(List.of(),
            new VmvxLoader(new Instance(), () -> extensions, List.of()));
    private final LocalSyncDriverFactory factory = new LocalSyncDriverFactory(libraries);

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindLibrary(KernelLibrary library) {
        try {
            libraries.add(library);
        } catch (RuntimeException e) {
            LOG.error("kernel library {} ignored: {}", library, e.toString());
        }
    }

    void unbindLibrary(KernelLibrary library) {
        libraries.remove(library);
    }

    /** Instruction extensions (ExtF32, ExtF64, …) that VMVX executables prepared later may use. */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindExtension(InstructionExtension extension) {
        extensions.add(extension);
    }

    void unbindExtension(InstructionExtension extension) {
        extensions.remove(extension);
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
