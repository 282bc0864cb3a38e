package dev.ortho.vm.internal.osgi;

import dev.ortho.vm.ModuleRegistry;
import dev.ortho.vm.spi.ModuleProvider;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes a {@link ModuleRegistry} that tracks every {@link ModuleProvider} service (dynamic,
 * greedy): a provider installed at runtime is linkable at once; one that leaves stops satisfying
 * new links. Each entry records its providing bundle ({@code symbolicName version [id]}) for
 * {@code vm:modules}. Thin adapter: the inherited plain registry does the work.
 */
@Component(service = ModuleRegistry.class)
public final class ModuleRegistryComponent extends ModuleRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(ModuleRegistryComponent.class);

    /** Adds a provider; ignores services without a name property. */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void addProvider(ModuleProvider provider, ServiceReference<ModuleProvider> reference) {
        Object name = reference.getProperty(ModuleProvider.NAME);
        Object version = reference.getProperty(ModuleProvider.VERSION);
        if (!(name instanceof String n)) {
            LOG.warn("ignoring ModuleProvider {} without a {} property", provider, ModuleProvider.NAME);
            return;
        }
        int v = version instanceof Number num ? num.intValue() : 0;
        add(n, v, provider, describe(reference.getBundle()));
    }

    void removeProvider(ModuleProvider provider) {
        remove(provider);
    }

    private static String describe(Bundle bundle) {
        if (bundle == null) {
            return "";
        }
        return bundle.getSymbolicName() + " " + bundle.getVersion() + " [" + bundle.getBundleId() + "]";
    }
}
