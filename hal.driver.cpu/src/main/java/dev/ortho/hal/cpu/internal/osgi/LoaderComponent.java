package dev.ortho.hal.cpu.internal.osgi;

import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cpu.kernel.ExecutableLoader;
import dev.ortho.hal.cpu.kernel.KernelExecutable;
import dev.ortho.hal.cpu.kernel.LoaderContext;
import java.util.Set;

/** Base of the thin loader components: the service forwards to the plain loader it publishes. */
abstract class LoaderComponent implements ExecutableLoader {
    private final ExecutableLoader loader;

    LoaderComponent(ExecutableLoader loader) {
        this.loader = loader;
    }

    @Override
    public final Set<String> formats() {
        return loader.formats();
    }

    @Override
    public final KernelExecutable load(ExecutableParams params, LoaderContext context) {
        return loader.load(params, context);
    }

    @Override
    public final String toString() {
        return loader.toString();
    }
}
