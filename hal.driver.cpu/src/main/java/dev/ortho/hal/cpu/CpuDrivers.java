package dev.ortho.hal.cpu;

import dev.ortho.hal.cpu.internal.builtin.BuiltinKernels;
import dev.ortho.hal.cpu.internal.executable.KernelLibraryRegistry;
import dev.ortho.hal.cpu.internal.sync.LocalSyncDriverFactory;
import dev.ortho.hal.cpu.internal.task.LocalTaskDriverFactory;
import dev.ortho.hal.cpu.internal.task.LocalTaskOptions;
import dev.ortho.hal.cpu.internal.vmvx.VmvxLoader;
import dev.ortho.hal.spi.DriverFactory;
import dev.ortho.vm.Instance;
import dev.ortho.vm.spi.InstructionExtension;
import java.util.List;

/**
 * Builds the CPU driver factories without a framework (register them with a
 * {@link dev.ortho.hal.DriverRegistry}): each has the builtin kernel library and a VMVX loader that
 * runs {@code vmvx-bytecode-fb} executables with {@code extensions} (normally
 * {@link dev.ortho.vm.spi.BuiltinExtensions#all()}). Stateless; thread-safe.
 */
public final class CpuDrivers {
    private CpuDrivers() {
    }

    /**
     * The {@code local-sync} driver factory: devices execute inline on the calling thread. It
     * holds no threads; the caller owns the devices it creates.
     */
    public static DriverFactory localSync(List<? extends InstructionExtension> extensions) {
        return new LocalSyncDriverFactory(libraries(extensions));
    }

    /**
     * The {@code local-task} driver factory with the default device options (one queue, a worker
     * per core; {@code local-task://?key=value} parameters override them per device). The result
     * is also {@link AutoCloseable}: closing it tears down every device it created (unfinished
     * work fails with UNAVAILABLE and the worker threads exit).
     */
    public static DriverFactory localTask(List<? extends InstructionExtension> extensions) {
        return new LocalTaskDriverFactory(libraries(extensions), LocalTaskOptions.DEFAULTS);
    }

    private static KernelLibraryRegistry libraries(List<? extends InstructionExtension> extensions) {
        List<InstructionExtension> fixed = List.copyOf(extensions);
        return new KernelLibraryRegistry(List.of(new BuiltinKernels()), new VmvxLoader(new Instance(), () -> fixed,
                List.of()));
    }
}
