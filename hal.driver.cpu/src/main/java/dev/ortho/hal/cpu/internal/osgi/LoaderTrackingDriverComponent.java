package dev.ortho.hal.cpu.internal.osgi;

import dev.ortho.hal.Driver;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.cpu.internal.executable.ExecutableLoaders;
import dev.ortho.hal.cpu.kernel.ExecutableLoader;
import dev.ortho.hal.spi.DriverFactory;
import java.util.List;
import java.util.function.Function;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * What both CPU driver components do: publish a CPU {@link DriverFactory} and keep its devices'
 * executable loaders in step with the {@link ExecutableLoader} services (dynamic, greedy; a loader
 * bundle installed at runtime adds its formats to every device at once, and they go away with
 * it). The references below reach the component XML of each subclass through bnd's
 * {@code -dsannotations-options: inherit} (hal.driver.cpu/bnd.bnd).
 *
 * @param <F> the driver factory
 */
abstract class LoaderTrackingDriverComponent<F extends DriverFactory> implements DriverFactory {
    private final RuntimeLoaders loaders;
    private final F factory;

    /**
     * @param vmvxCompile the configuration's VMVX compile property ({@link RuntimeLoaders})
     * @param newFactory builds the driver factory over the tracked loaders
     */
    LoaderTrackingDriverComponent(String vmvxCompile, Function<ExecutableLoaders, F> newFactory) {
        this.loaders = new RuntimeLoaders(vmvxCompile);
        this.factory = newFactory.apply(loaders.loaders());
    }

    final F factory() {
        return factory;
    }

    /** The executable loaders (vmvx-bytecode-fb, jvm-static, those of other bundles) its devices prepare with. */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindLoader(ExecutableLoader loader) {
        loaders.addLoader(loader);
    }

    void unbindLoader(ExecutableLoader loader) {
        loaders.removeLoader(loader);
    }

    @Override
    public final List<DriverInfo> enumerate() {
        return factory.enumerate();
    }

    @Override
    public final Driver createDriver(String driverName) {
        return factory.createDriver(driverName);
    }
}
