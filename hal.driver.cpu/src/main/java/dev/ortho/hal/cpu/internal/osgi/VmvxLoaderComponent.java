package dev.ortho.hal.cpu.internal.osgi;

import dev.ortho.hal.cpu.internal.vmvx.VmvxLoader;
import dev.ortho.hal.cpu.kernel.ExecutableLoader;
import dev.ortho.vm.Instance;
import dev.ortho.vm.spi.InstructionExtension;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * Thin OSGi adapter: publishes the {@code vmvx-bytecode-fb} {@link VmvxLoader} as an
 * {@link ExecutableLoader} service; its executables may use the {@link InstructionExtension}
 * services (ExtF32, ExtF64, …) present when they are prepared (dynamic, greedy).
 */
@Component(service = ExecutableLoader.class, property = ExecutableLoader.SERVICE_PROPERTY + "="
        + VmvxLoader.FORMAT)
public final class VmvxLoaderComponent extends LoaderComponent {
    private final List<InstructionExtension> extensions;

    public VmvxLoaderComponent() {
        this(new CopyOnWriteArrayList<>());
    }

    private VmvxLoaderComponent(List<InstructionExtension> extensions) {
        super(new VmvxLoader(new Instance(), () -> extensions, List.of()));
        this.extensions = extensions;
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindExtension(InstructionExtension extension) {
        extensions.add(extension);
    }

    void unbindExtension(InstructionExtension extension) {
        extensions.remove(extension);
    }
}
