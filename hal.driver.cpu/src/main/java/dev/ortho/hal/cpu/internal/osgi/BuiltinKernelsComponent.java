package dev.ortho.hal.cpu.internal.osgi;

import dev.ortho.hal.cpu.internal.builtin.BuiltinKernels;
import dev.ortho.hal.cpu.kernel.KernelFunction;
import dev.ortho.hal.cpu.kernel.KernelLibrary;
import java.util.List;
import org.osgi.service.component.annotations.Component;

/** Thin OSGi adapter: registers the {@link BuiltinKernels} library as a {@link KernelLibrary} service. */
@Component(service = KernelLibrary.class, property = KernelLibrary.SERVICE_PROPERTY + "=" + BuiltinKernels.NAME)
public final class BuiltinKernelsComponent implements KernelLibrary {
    private final BuiltinKernels library = new BuiltinKernels();

    @Override
    public String name() {
        return library.name();
    }

    @Override
    public List<KernelFunction> functions() {
        return library.functions();
    }
}
