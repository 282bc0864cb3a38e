package dev.ortho.itest.vm.moduleb;

import dev.ortho.vm.Call;
import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.Module;
import dev.ortho.vm.NativeCall;
import dev.ortho.vm.NativeModule;
import dev.ortho.vm.spi.ModuleProvider;
import java.util.Hashtable;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;

/**
 * Activator of the bundle that {@code CrossBundleModuleIT} builds with TinyBundles: registers a
 * {@link ModuleProvider} for module {@code b} version 1, which requires module {@code a} (version
 * 1 or newer), imports {@code a.add} ({@code 0ii_i}) and exports {@code twice(x) = a.add(x, x)}
 * ({@code 0i_i}) and {@code sum(x, y, z) = a.add(a.add(x, y), z)} ({@code 0iii_i}). The two
 * bundles share no Java package: {@code b} reaches {@code a} only through the VM link.
 */
public final class ModuleBActivator implements BundleActivator {
    private static final Module MODULE = NativeModule.<Void>builder("b", 1)
            .dependency("a", 1, true)
            .importFunction("a.add", "0ii_i", false)
            .export("twice", "0i_i", (state, call) -> {
                int x = call.args().i32(0);
                call.results().setI32(0, add(call, x, x));
                return CallOutcome.COMPLETED;
            })
            .export("sum", "0iii_i", (state, call) -> {
                int xy = add(call, call.args().i32(0), call.args().i32(1));
                call.results().setI32(0, add(call, xy, call.args().i32(2)));
                return CallOutcome.COMPLETED;
            })
            .build();

    private static int add(NativeCall call, int x, int y) {
        Call add = call.prepareImport(0);
        add.arguments().setI32(0, x);
        add.arguments().setI32(1, y);
        call.invoke(add);
        return add.results().i32(0);
    }

    @Override
    public void start(BundleContext context) {
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put(ModuleProvider.NAME, "b");
        properties.put(ModuleProvider.VERSION, 1);
        context.registerService(ModuleProvider.class, instance -> MODULE, properties);
    }

    @Override
    public void stop(BundleContext context) {
        // the framework unregisters the provider
    }
}
