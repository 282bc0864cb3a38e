package dev.ortho.hal.cpu.internal.osgi;

import dev.ortho.base.StatusException;
import dev.ortho.hal.cpu.internal.executable.ExecutableLoaders;
import dev.ortho.hal.cpu.internal.vmvx.VmvxLoader;
import dev.ortho.hal.cpu.kernel.ExecutableLoader;
import java.util.List;
import java.util.Map;

/**
 * What a CPU driver component tracks of the service registry: the {@link ExecutableLoader}
 * services, kept in an {@link ExecutableLoaders} whose default {@value VmvxLoader#COMPILE_OPTION}
 * comes from the driver's configuration. Executables prepared after a bind or unbind see the
 * change; executables already prepared keep what they resolved.
 *
 * <p>Thread-safe: binds and unbinds may race with executable preparation.
 */
final class RuntimeLoaders {
    private final ExecutableLoaders loaders;

    /**
     * @param vmvxCompile the driver's {@value VmvxLoader#COMPILE_OPTION} property: how VMVX
     *     dispatch functions run on devices whose URI does not say
     * @throws StatusException INVALID_ARGUMENT if {@code vmvxCompile} is not off, lazy or eager
     */
    RuntimeLoaders(String vmvxCompile) {
        VmvxLoader.parseKernelExecution("driver configuration property", vmvxCompile);
        this.loaders = new ExecutableLoaders(List.of(), Map.of(VmvxLoader.COMPILE_OPTION, vmvxCompile.strip()));
    }

    /** The loaders to give the driver factory; owned by this object. */
    ExecutableLoaders loaders() {
        return loaders;
    }

    void addLoader(ExecutableLoader loader) {
        loaders.add(loader);
    }

    void removeLoader(ExecutableLoader loader) {
        loaders.remove(loader);
    }
}
