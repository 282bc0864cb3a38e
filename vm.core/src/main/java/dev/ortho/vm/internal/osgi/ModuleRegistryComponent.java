package dev.ortho.vm.internal.osgi;

import dev.ortho.vm.ModuleRegistry;
import dev.ortho.vm.spi.ModuleProvider;
import java.util.Map;
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
 * new links. Thin adapter: the inherited plain registry does the work.
 */
@Component(service = ModuleRegistry.class)
public final class ModuleRegistryComponent extends ModuleRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(ModuleRegistryComponent.class);

    /** Adds a provider; ignores services without a name property. */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void addProvider(ModuleProvider provider, Map<String, Object> properties) {
        Object name = properties.get(ModuleProvider.NAME);
        Object version = properties.get(ModuleProvider.VERSION);
        if (!(name instanceof String n)) {
            LOG.warn("ignoring ModuleProvider {} without a {} property", provider, ModuleProvider.NAME);
            return;
        }
        int v = version instanceof Number num ? num.intValue() : 0;
        add(n, v, provider);
    }

    void removeProvider(ModuleProvider provider) {
        remove(provider);
    }
}
