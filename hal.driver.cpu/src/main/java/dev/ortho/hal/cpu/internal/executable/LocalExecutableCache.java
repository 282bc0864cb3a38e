package dev.ortho.hal.cpu.internal.executable;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cpu.internal.vmvx.VmvxLoader;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import dev.ortho.vm.bytecode.ExecutionMode;
import dev.ortho.hal.spi.RefCount;

/**
 * Prepares {@code jvm-static} executables (against the {@link KernelLibraryRegistry}'s kernel
 * libraries) and {@code vmvx-bytecode-fb} executables (with its {@link VmvxLoader}) for a CPU
 * device, with the device's choice of how VMVX dispatch functions run. Nothing is cached across
 * preparations. Thread-safe.
 */
public final class LocalExecutableCache implements ExecutableCache {
    private final String identifier;
    private final KernelLibraryRegistry libraries;
    private final ExecutionMode kernelExecution;
    private final RefCount references = new RefCount();

    /** A cache whose VMVX dispatch functions run as the registry's loader says. */
    public LocalExecutableCache(String identifier, KernelLibraryRegistry libraries) {
        this(identifier, libraries, null);
    }

    /**
     * @param kernelExecution how VMVX dispatch functions run; null: as the registry's
     *     {@link VmvxLoader#kernelExecution()} says
     */
    public LocalExecutableCache(String identifier, KernelLibraryRegistry libraries, ExecutionMode kernelExecution) {
        this.identifier = identifier;
        this.libraries = libraries;
        this.kernelExecution = kernelExecution;
    }

    @Override
    public boolean canPrepareFormat(String format) {
        return JvmStaticFormat.FORMAT.equals(format) || VmvxLoader.FORMAT.equals(format);
    }

    @Override
    public Executable prepareExecutable(ExecutableParams params) {
        if (params == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "executable params are null");
        }
        if (!canPrepareFormat(params.format())) {
            throw new StatusException(StatusCode.INCOMPATIBLE, "executable format '" + params.format()
                    + "' is not supported by executable cache '" + identifier + "' (supported: "
                    + JvmStaticFormat.FORMAT + ", " + VmvxLoader.FORMAT + ")");
        }
        if (VmvxLoader.FORMAT.equals(params.format())) {
            try {
                VmvxLoader vmvx = libraries.vmvx();
                return vmvx.load(params, kernelExecution == null ? vmvx.kernelExecution() : kernelExecution);
            } catch (StatusException e) {
                throw e.annotate("while preparing a vmvx-bytecode-fb executable in cache '" + identifier + "'");
            }
        }
        if (params.constants() != null && params.constants().length != 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "executable cache '" + identifier + "': "
                    + params.constants().length + " executable constants given, but jvm-static executables take none");
        }
        try {
            JvmStaticFormat.Descriptor descriptor = JvmStaticFormat.parse(params.data());
            return JvmStaticExecutable.resolve(descriptor, libraries.find(descriptor.library()));
        } catch (StatusException e) {
            throw e.annotate("while preparing a jvm-static executable in cache '" + identifier + "'");
        }
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
