package dev.ortho.itest.vm.modulea;

import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.Module;
import dev.ortho.vm.NativeModule;
import dev.ortho.vm.spi.ModuleProvider;
import java.util.Hashtable;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;

/**
 * Activator of the bundle that {@code CrossBundleModuleIT} builds with TinyBundles: registers a
 * {@link ModuleProvider} for module {@code a} version 1, which exports {@code add} ({@code 0ii_i}).
 * Self-contained: the bundle holds only this class and imports {@code dev.ortho.vm},
 * {@code dev.ortho.vm.spi} and {@code org.osgi.framework}.
 */
public final class ModuleAActivator implements BundleActivator {
    private static final Module MODULE = NativeModule.<Void>builder("a", 1)
            .export("add", "0ii_i", (state, call) -> {
                call.results().setI32(0, call.args().i32(0) + call.args().i32(1));
                return CallOutcome.COMPLETED;
            })
            .build();

    @Override
    public void start(BundleContext context) {
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put(ModuleProvider.NAME, "a");
        properties.put(ModuleProvider.VERSION, 1);
        context.registerService(ModuleProvider.class, instance -> MODULE, properties);
    }

    @Override
    public void stop(BundleContext context) {
        // the framework unregisters the provider
    }
}
