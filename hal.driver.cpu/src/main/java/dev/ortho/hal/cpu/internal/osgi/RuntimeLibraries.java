package dev.ortho.hal.cpu.internal.osgi;

import dev.ortho.base.StatusException;
import dev.ortho.hal.cpu.internal.executable.KernelLibraryRegistry;
import dev.ortho.hal.cpu.internal.vmvx.VmvxLoader;
import dev.ortho.hal.cpu.kernel.KernelLibrary;
import dev.ortho.vm.Instance;
import dev.ortho.vm.bytecode.ExecutionMode;
import dev.ortho.vm.spi.InstructionExtension;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a CPU driver component tracks of the service registry: a kernel library registry kept in
 * step with the {@link KernelLibrary} services, whose VMVX loader sees the
 * {@link InstructionExtension} services bound so far. Executables prepared after a bind or unbind
 * see the change; executables already prepared keep what they resolved.
 *
 * <p>Thread-safe: binds and unbinds may race with executable preparation.
 */
final class RuntimeLibraries {
    private final Logger log;
    private final List<InstructionExtension> extensions = new CopyOnWriteArrayList<>();
    private final KernelLibraryRegistry libraries;

    /**
     * @param owner the component whose logger reports libraries that cannot be added
     * @param vmvxCompile the driver's {@value VmvxLoader#COMPILE_OPTION} property: how VMVX
     *     dispatch functions run on devices whose URI does not say
     * @throws StatusException INVALID_ARGUMENT if {@code vmvxCompile} is not off, lazy or eager
     */
    RuntimeLibraries(Class<?> owner, String vmvxCompile) {
        this.log = LoggerFactory.getLogger(owner);
        ExecutionMode mode = VmvxLoader.parseKernelExecution("driver configuration property", vmvxCompile);
        this.libraries = new KernelLibraryRegistry(List.of(), new VmvxLoader(new Instance(), () -> extensions,
                List.of(), mode));
    }

    /** The registry to give the driver factory; owned by this object. */
    KernelLibraryRegistry registry() {
        return libraries;
    }

    /** Adds {@code library}; one that the registry rejects is logged and ignored. */
    void addLibrary(KernelLibrary library) {
        try {
            libraries.add(library);
        } catch (RuntimeException e) {
            log.error("kernel library {} ignored: {}", library, e.toString());
        }
    }

    void removeLibrary(KernelLibrary library) {
        libraries.remove(library);
    }

    void addExtension(InstructionExtension extension) {
        extensions.add(extension);
    }

    void removeExtension(InstructionExtension extension) {
        extensions.remove(extension);
    }
}
