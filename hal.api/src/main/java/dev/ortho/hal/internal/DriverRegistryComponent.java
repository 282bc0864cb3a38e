package dev.ortho.hal.internal;

import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.spi.DriverFactory;
import java.util.Map;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thin OSGi adapter: keeps one plain {@link DriverRegistry} in step with every
 * {@link DriverFactory} service (dynamic, greedy; {@code service.ranking} breaks name ties) and
 * publishes it as the {@code dev.ortho.hal.DriverRegistry} service.
 */
@Component(immediate = true)
public final class DriverRegistryComponent {
    private static final Logger LOG = LoggerFactory.getLogger(DriverRegistryComponent.class);

    private final DriverRegistry registry = new DriverRegistry();
    private ServiceRegistration<DriverRegistry> registration;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindFactory(DriverFactory factory, Map<String, Object> properties) {
        try {
            registry.register(factory, ranking(properties));
            LOG.debug("driver factory {} registered: {}", factory, properties.get("hal.driver.name"));
        } catch (RuntimeException e) {
            LOG.error("driver factory {} (bundle {}) cannot be registered: {}", factory,
                    properties.get("service.bundleid"), e.toString());
        }
    }

    void updatedFactory(DriverFactory factory, Map<String, Object> properties) {
        try {
            registry.updateRanking(factory, ranking(properties));
        } catch (RuntimeException e) {
            LOG.warn("driver factory {} ranking update ignored: {}", factory, e.toString());
        }
    }

    void unbindFactory(DriverFactory factory) {
        registry.unregister(factory);
    }

    @Activate
    void activate(BundleContext context) {
        registration = context.registerService(DriverRegistry.class, registry, null);
    }

    @Deactivate
    void deactivate() {
        registration.unregister();
    }

    private static int ranking(Map<String, Object> properties) {
        return properties.get(Constants.SERVICE_RANKING) instanceof Integer ranking ? ranking : 0;
    }
}
