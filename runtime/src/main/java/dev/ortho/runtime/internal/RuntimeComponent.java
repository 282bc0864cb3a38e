package dev.ortho.runtime.internal;

import dev.ortho.hal.DriverRegistry;
import dev.ortho.runtime.OrthoRuntime;
import dev.ortho.runtime.Program;
import dev.ortho.runtime.ProgramOptions;
import dev.ortho.vm.spi.InstructionExtension;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * Thin OSGi adapter: publishes an {@link OrthoRuntime} over the {@link DriverRegistry} service
 * (every installed driver, devices by URI) and the {@link InstructionExtension} services (dynamic,
 * greedy; read at each load). Programs belong to whoever loaded them; those still open when the
 * component deactivates (bundle stopped, registry gone) are closed then. {@link #close()} is a
 * no-op: the component owns the runtime, not its users.
 */
@Component(service = OrthoRuntime.class)
public final class RuntimeComponent implements OrthoRuntime {
    private final List<InstructionExtension> extensions = new CopyOnWriteArrayList<>();
    private final OrthoRuntime runtime;

    /** Builds the runtime over {@code drivers}. */
    @Activate
    public RuntimeComponent(@Reference DriverRegistry drivers) {
        this.runtime = OrthoRuntime.create(drivers, () -> List.copyOf(extensions));
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindExtension(InstructionExtension extension) {
        extensions.add(extension);
    }

    void unbindExtension(InstructionExtension extension) {
        extensions.remove(extension);
    }

    /** Closes the programs still open. */
    @Deactivate
    void deactivate() {
        runtime.close();
    }

    @Override
    public List<String> drivers() {
        return runtime.drivers();
    }

    @Override
    public Program load(Path module, ProgramOptions options) {
        return runtime.load(module, options);
    }

    @Override
    public Program load(byte[] module, ProgramOptions options) {
        return runtime.load(module, options);
    }

    @Override
    public Program load(MemorySegment module, ProgramOptions options) {
        return runtime.load(module, options);
    }

    /** Does nothing: the service's runtime lives as long as the component. */
    @Override
    public void close() {
    }
}
