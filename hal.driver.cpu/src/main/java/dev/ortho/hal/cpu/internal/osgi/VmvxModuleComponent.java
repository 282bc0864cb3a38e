package dev.ortho.hal.cpu.internal.osgi;

import dev.ortho.hal.cpu.internal.vmvx.VmvxModule;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Module;
import dev.ortho.vm.spi.ModuleProvider;
import org.osgi.service.component.annotations.Component;

/**
 * Thin OSGi adapter: publishes the {@code vmvx} microkernel module ({@link VmvxModule}) as a
 * {@link ModuleProvider}, so host programs can link it too. The module is immutable and shared.
 */
@Component(service = ModuleProvider.class, property = {
        ModuleProvider.NAME + "=" + VmvxModule.NAME,
        ModuleProvider.VERSION + ":Integer=" + VmvxModule.VERSION})
public final class VmvxModuleComponent implements ModuleProvider {
    private final Module module = VmvxModule.create();

    @Override
    public Module createModule(Instance instance) {
        return module;
    }
}
