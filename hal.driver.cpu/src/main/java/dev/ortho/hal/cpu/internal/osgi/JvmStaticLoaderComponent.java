package dev.ortho.hal.cpu.internal.osgi;

import dev.ortho.hal.cpu.internal.executable.JvmStaticLoader;
import dev.ortho.hal.cpu.kernel.ExecutableLoader;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import dev.ortho.hal.cpu.kernel.KernelLibrary;
import java.util.List;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thin OSGi adapter: publishes the {@code jvm-static} {@link JvmStaticLoader} as an
 * {@link ExecutableLoader} service and keeps its libraries in step with the {@link KernelLibrary}
 * services (dynamic, greedy): executables prepared later resolve against the libraries present.
 */
@Component(service = ExecutableLoader.class, property = ExecutableLoader.SERVICE_PROPERTY + "="
        + JvmStaticFormat.FORMAT)
public final class JvmStaticLoaderComponent extends LoaderComponent {
    private static final Logger LOG = LoggerFactory.getLogger(JvmStaticLoaderComponent.class);
    private final JvmStaticLoader loader;

    public JvmStaticLoaderComponent() {
        this(new JvmStaticLoader(List.of()));
    }

    private JvmStaticLoaderComponent(JvmStaticLoader loader) {
        super(loader);
        this.loader = loader;
    }

    /** Adds {@code library}; one whose name is taken is logged and ignored. */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindLibrary(KernelLibrary library) {
        try {
            loader.add(library);
        } catch (RuntimeException e) {
            LOG.error("kernel library {} ignored: {}", library, e.toString());
        }
    }

    void unbindLibrary(KernelLibrary library) {
        loader.remove(library);
    }
}
