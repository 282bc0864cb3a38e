package dev.ortho.vm.internal.osgi;

import dev.ortho.vm.Instance;
import org.osgi.annotation.bundle.Capability;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * Publishes the framework's shared {@link Instance} as a {@code dev.ortho.vm.Instance} service,
 * so that bundles register their ref types ({@code hal.buffer}, …) with the same instance that
 * hosts create contexts on, and {@code vm:types} can list them. One instance per activation of
 * this bundle; bundles that need an isolated type registry create their own plain
 * {@code new Instance()} instead. Thin adapter: created in {@code @Activate}, unregistered in
 * {@code @Deactivate}. The registration is by hand, so the {@code osgi.service} capability is
 * declared explicitly for resolvers.
 */
@Capability(namespace = "osgi.service", attribute = "objectClass:List<String>=\"dev.ortho.vm.Instance\"",
        uses = Instance.class)
@Component(immediate = true)
public final class InstanceComponent {
    private ServiceRegistration<Instance> registration;

    @Activate
    void activate(BundleContext context) {
        registration = context.registerService(Instance.class, new Instance(), null);
    }

    @Deactivate
    void deactivate() {
        registration.unregister();
    }
}
