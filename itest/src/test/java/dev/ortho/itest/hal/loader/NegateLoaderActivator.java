package dev.ortho.itest.hal.loader;

import dev.ortho.hal.cpu.kernel.ExecutableLoader;
import java.util.Hashtable;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;

/**
 * Activator of the loader bundle that {@code ExecutableLoaderInstallIT} builds with TinyBundles:
 * registers a {@link NegateLoader} as an {@link ExecutableLoader} service for format
 * {@value NegateLoader#FORMAT}, as any third-party loader bundle would. The bundle holds the two
 * classes of this package and imports {@code dev.ortho.base}, {@code dev.ortho.hal},
 * {@code dev.ortho.hal.cpu.kernel} (1.1) and {@code org.osgi.framework}.
 */
public final class NegateLoaderActivator implements BundleActivator {
    @Override
    public void start(BundleContext context) {
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put(ExecutableLoader.SERVICE_PROPERTY, NegateLoader.FORMAT);
        context.registerService(ExecutableLoader.class, new NegateLoader(), properties);
    }

    @Override
    public void stop(BundleContext context) {
        // the framework unregisters the loader
    }
}
