package dev.ortho.hal.internal;

import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.spi.DeviceWrapper;
import dev.ortho.hal.spi.DriverFactory;
import java.util.List;
import java.util.Map;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thin OSGi adapter: keeps one plain {@link DriverRegistry} in step with every
 * {@link DriverFactory} and {@link DeviceWrapper} service (dynamic, greedy; {@code service.ranking}
 * breaks name ties) and publishes it as the {@code dev.ortho.hal.DriverRegistry} service. The
 * optional configuration (PID {@code dev.ortho.hal.registry}) names wrappers applied to every
 * device, e.g. {@code deviceWrappers=validation}; changing it takes effect for the next device.
 */
@Component(immediate = true, configurationPid = "dev.ortho.hal.registry",
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = DriverRegistryConfig.class)
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

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindWrapper(DeviceWrapper wrapper, Map<String, Object> properties) {
        try {
            registry.registerWrapper(wrapper, ranking(properties));
            Object advertised = properties.get("hal.wrapper.name");
            if (advertised != null && !advertised.equals(wrapper.name())) {
                LOG.warn("device wrapper {} advertises hal.wrapper.name={} but is named '{}'; '{}' is used",
                        wrapper, advertised, wrapper.name(), wrapper.name());
            }
        } catch (RuntimeException e) {
            LOG.error("device wrapper {} (bundle {}) cannot be registered: {}", wrapper,
                    properties.get("service.bundleid"), e.toString());
        }
    }

    void updatedWrapper(DeviceWrapper wrapper, Map<String, Object> properties) {
        // ranking changes re-sort: unregister and register again (devices already wrapped are unaffected)
        if (registry.unregisterWrapper(wrapper)) {
            bindWrapper(wrapper, properties);
        }
    }

    void unbindWrapper(DeviceWrapper wrapper) {
        registry.unregisterWrapper(wrapper);
    }

    @Activate
    void activate(BundleContext context, DriverRegistryConfig config) {
        configure(config);
        registration = context.registerService(DriverRegistry.class, registry, null);
    }

    @Modified
    void modified(DriverRegistryConfig config) {
        configure(config);
    }

    @Deactivate
    void deactivate() {
        registration.unregister();
    }

    private void configure(DriverRegistryConfig config) {
        try {
            registry.setDefaultWrappers(List.of(config.deviceWrappers()));
            LOG.debug("devices are wrapped with {}", registry.defaultWrappers());
        } catch (RuntimeException e) {
            LOG.error("configuration dev.ortho.hal.registry deviceWrappers={} ignored: {}",
                    List.of(config.deviceWrappers()), e.toString());
        }
    }

    private static int ranking(Map<String, Object> properties) {
        return properties.get(Constants.SERVICE_RANKING) instanceof Integer ranking ? ranking : 0;
    }
}
