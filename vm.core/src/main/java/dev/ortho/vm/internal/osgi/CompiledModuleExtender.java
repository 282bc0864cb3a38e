package dev.ortho.vm.internal.osgi;

import dev.ortho.base.StatusException;
import dev.ortho.vm.bytecode.PrecompiledModule;
import dev.ortho.vm.spi.InstructionExtension;
import dev.ortho.vm.spi.ModuleProvider;
import java.net.URL;
import java.util.Dictionary;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import org.osgi.annotation.bundle.Capability;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleEvent;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.util.tracker.BundleTracker;
import org.osgi.util.tracker.BundleTrackerCustomizer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The extender for compiled module bundles ({@code ortho compile-module}): for every active (or
 * lazily starting) bundle with an {@value PrecompiledModule#HEADER_MODULE} header, reads it with
 * {@link PrecompiledModule#fromBundle(String, Map, PrecompiledModule.Resources)} and registers a
 * {@link ModuleProvider} in that bundle's name (properties {@code vm.module.name},
 * {@code vm.module.version}), so the module bundle owns it: it leaves when the bundle stops or
 * is uninstalled, or when this component deactivates. A bundle that fails the checks gets no
 * provider; the status is logged as an error naming the bundle. Modules load with the
 * instruction extension services present at each {@code createModule}.
 *
 * <p>Provides the {@value PrecompiledModule#CAPABILITY_NAMESPACE} capability that compiled
 * bundles require, so a runtime with another compiler format does not resolve them.
 */
@Capability(namespace = PrecompiledModule.CAPABILITY_NAMESPACE, name = PrecompiledModule.COMPILER,
        version = PrecompiledModule.FORMAT)
@Component(immediate = true)
public final class CompiledModuleExtender {
    private static final Logger LOG = LoggerFactory.getLogger(CompiledModuleExtender.class);

    /** Instruction extension services (ExtF32, ExtF64, third parties); replaced on change. */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    volatile List<InstructionExtension> extensions;

    private BundleTracker<ServiceRegistration<ModuleProvider>> tracker;

    @Activate
    void activate(BundleContext context) {
        tracker = new BundleTracker<>(context, Bundle.ACTIVE | Bundle.STARTING, new Customizer());
        tracker.open();
    }

    @Deactivate
    void deactivate() {
        tracker.close();
    }

    private final class Customizer implements BundleTrackerCustomizer<ServiceRegistration<ModuleProvider>> {
        @Override
        public ServiceRegistration<ModuleProvider> addingBundle(Bundle bundle, BundleEvent event) {
            Dictionary<String, String> raw = bundle.getHeaders("");
            if (raw.get(PrecompiledModule.HEADER_MODULE) == null) {
                return null;
            }
            if (bundle.getState() == Bundle.STARTING
                    && !"lazy".equals(String.valueOf(raw.get("Bundle-ActivationPolicy")).split(";")[0].trim())) {
                return null; // an eager bundle is added once it is ACTIVE
            }
            String name = bundle.getSymbolicName() + " " + bundle.getVersion() + " [" + bundle.getBundleId() + "]";
            Map<String, String> headers = new HashMap<>();
            for (Enumeration<String> keys = raw.keys(); keys.hasMoreElements(); ) {
                String key = keys.nextElement();
                headers.put(key, raw.get(key));
            }
            PrecompiledModule module;
            try {
                module = PrecompiledModule.fromBundle(name, headers, path -> {
                    URL url = bundle.getEntry(path);
                    return url == null ? null : url.openStream();
                });
            } catch (StatusException e) {
                LOG.error("compiled module bundle {} provides no module: {}", name, e.getMessage());
                return null;
            }
            BundleContext owner = bundle.getBundleContext();
            if (owner == null) {
                return null;
            }
            Dictionary<String, Object> props = new Hashtable<>();
            props.put(ModuleProvider.NAME, module.moduleName());
            props.put(ModuleProvider.VERSION, module.moduleVersion());
            ModuleProvider provider = module.provider(() -> {
                List<InstructionExtension> now = extensions;
                return now == null ? List.of() : List.copyOf(now);
            });
            return owner.registerService(ModuleProvider.class, provider, props);
        }

        @Override
        public void modifiedBundle(Bundle bundle, BundleEvent event, ServiceRegistration<ModuleProvider> registration) {
        }

        @Override
        public void removedBundle(Bundle bundle, BundleEvent event, ServiceRegistration<ModuleProvider> registration) {
            try {
                registration.unregister();
            } catch (IllegalStateException e) {
                // already gone with the bundle's context
            }
        }
    }
}
