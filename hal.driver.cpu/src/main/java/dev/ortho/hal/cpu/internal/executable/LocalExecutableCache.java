package dev.ortho.hal.cpu.internal.executable;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cpu.kernel.ExecutableLoader;
import dev.ortho.hal.cpu.kernel.KernelExecutable;
import dev.ortho.hal.cpu.kernel.LoaderContext;
import dev.ortho.hal.spi.RefCount;
import dev.ortho.vm.bytecode.ExecutionMode;
import java.util.Locale;

/**
 * A CPU device's executable cache (IREE's {@code local_executable_cache}): prepares an executable
 * with the first of the driver's {@link ExecutableLoaders} that lists its format and provides it,
 * passing the device's loader options. Nothing is cached across preparations. Thread-safe.
 */
public final class LocalExecutableCache implements ExecutableCache {
    private final String identifier;
    private final ExecutableLoaders loaders;
    private final LoaderContext context;
    private final RefCount references = new RefCount();

    /** A cache whose loaders use the driver's default options. */
    public LocalExecutableCache(String identifier, ExecutableLoaders loaders) {
        this(identifier, loaders, null);
    }

    /**
     * @param kernelExecution how VMVX dispatch functions run (the device's
     *     {@value LoaderContext#VMVX_COMPILE}); null: as the driver's default, else the loader's
     */
    public LocalExecutableCache(String identifier, ExecutableLoaders loaders, ExecutionMode kernelExecution) {
        this.identifier = identifier;
        this.loaders = loaders;
        String vmvxCompile = kernelExecution == null ? null : kernelExecution.name().toLowerCase(Locale.ROOT);
        this.context = new LoaderContext() {
            @Override
            public String cacheIdentifier() {
                return identifier;
            }

            @Override
            public String option(String key) {
                return vmvxCompile != null && key.equals(VMVX_COMPILE) ? vmvxCompile : loaders.defaultOption(key);
            }
        };
    }

    /**
     * A CPU device's answer to query {@code hal.executable.format} / {@code format}: 1 if one of
     * {@code loaders} lists the format, else 0 (IREE's devices answer the same way).
     */
    public static long formatQuery(ExecutableLoaders loaders, String format) {
        return loaders.supportsFormat(format) ? 1 : 0;
    }

    @Override
    public boolean canPrepareFormat(String format) {
        return loaders.supportsFormat(format);
    }

    /**
     * Tries the loaders that list the format in order: the first executable wins; NOT_FOUND or
     * CANCELLED passes on to the next loader (IREE's rule), any other failure is final. When every
     * loader passed, the last one's NOT_FOUND is thrown.
     *
     * @throws StatusException INVALID_ARGUMENT for null params; INCOMPATIBLE naming the format and
     *     the formats present if no loader lists it; the loader's failure, annotated with the
     *     format and this cache
     */
    @Override
    public Executable prepareExecutable(ExecutableParams params) {
        if (params == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "executable params are null");
        }
        String format = params.format();
        StatusException passed = null;
        boolean listed = false;
        for (ExecutableLoader loader : loaders.snapshot()) {
            if (!loader.formats().contains(format)) {
                continue;
            }
            listed = true;
            try {
                KernelExecutable executable = loader.load(params, context);
                if (executable == null) {
                    throw new StatusException(StatusCode.INTERNAL, "executable loader " + loader + " returned null");
                }
                return executable;
            } catch (StatusException e) {
                if (e.code() != StatusCode.NOT_FOUND && e.code() != StatusCode.CANCELLED) {
                    throw annotate(e, format);
                }
                passed = e;
            } catch (RuntimeException e) {
                throw annotate(new StatusException(StatusCode.INTERNAL, "executable loader " + loader + " threw " + e,
                        e), format);
            }
        }
        if (!listed) {
            throw new StatusException(StatusCode.INCOMPATIBLE, "executable format '" + format + "' is not supported by"
                    + " executable cache '" + identifier + "': no executable loader for it (formats with a loader: "
                    + String.join(", ", loaders.formats()) + ")");
        }
        throw annotate(passed, format);
    }

    private StatusException annotate(StatusException e, String format) {
        return e.annotate("while preparing a " + format + " executable in cache '" + identifier + "'");
    }

    @Override
    public void retain() {
        references.retain();
    }

    @Override
    public void release() {
        references.release("executable cache '" + identifier + "'");
    }
}
