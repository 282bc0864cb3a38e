package dev.ortho.modules.io.parameters.internal.osgi;

import dev.ortho.io.parameters.ParameterIndex;
import dev.ortho.modules.io.parameters.ParameterModule;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Module;
import dev.ortho.vm.spi.ModuleProvider;
import java.util.List;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Thin OSGi adapter: the {@code io_parameters} module as a {@link ModuleProvider} service
 * ({@code vm.module.name=io_parameters}, {@code vm.module.version=0}).
 *
 * <p>Parameter files come from configuration PID {@value #PID}, property {@code parameters}:
 * IREE's {@code --parameters=} values ({@code [scope=]file.irpa}), opened on the first
 * {@link #createModule} (cheap activation) and released on deactivation (contexts still alive
 * keep their own references). Tools that choose files per run ({@code --parameters=}) call
 * {@link ParameterModule#create} with their own index instead. A configuration change
 * re-activates the component with the new files.
 */
@Component(service = ModuleProvider.class, configurationPid = ParameterModuleComponent.PID,
        property = {ModuleProvider.NAME + "=" + ParameterModule.NAME,
                ModuleProvider.VERSION + ":Integer=" + ParameterModule.VERSION})
@Designate(ocd = ParameterModuleComponent.Config.class)
public final class ParameterModuleComponent implements ModuleProvider {
    /** The configuration PID. */
    public static final String PID = "dev.ortho.modules.io.parameters";

    /** Configuration of the parameter files the service's modules serve. */
    @ObjectClassDefinition(name = "Ortho io_parameters VM module", description = "Parameter archives served to "
            + "VM programs by the io_parameters module service")
    public @interface Config {
        /** Parameter files, as IREE's --parameters= values. */
        @AttributeDefinition(name = "Parameters", description = "Parameter files as [scope=]path.irpa, e.g. "
                + "model=/data/weights.irpa")
        String[] parameters() default {};
    }

    private final List<String> specs;
    private ParameterIndex index; // guarded by this

    @Activate
    public ParameterModuleComponent(Config config) {
        this.specs = List.of(config.parameters());
    }

    @Override
    public synchronized Module createModule(Instance instance) {
        if (index == null) {
            index = ParameterIndex.open(specs);
        }
        return ParameterModule.create(instance, index);
    }

    @Deactivate
    synchronized void deactivate() {
        if (index != null) {
            index.close();
            index = null;
        }
    }
}
