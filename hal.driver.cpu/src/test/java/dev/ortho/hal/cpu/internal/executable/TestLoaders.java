package dev.ortho.hal.cpu.internal.executable;

import dev.ortho.hal.cpu.internal.builtin.BuiltinKernels;
import dev.ortho.hal.cpu.internal.vmvx.VmvxLoader;
import dev.ortho.hal.cpu.kernel.ExecutableLoader;
import dev.ortho.vm.Instance;
import dev.ortho.vm.spi.InstructionExtension;
import java.util.List;
import java.util.Map;

/** Executable loaders for the driver-internal tests (code outside this bundle uses {@code CpuDrivers}). */
public final class TestLoaders {
    private TestLoaders() {}

    /** The vmvx-bytecode-fb loader (no instruction extensions) and jvm-static with the builtin kernels. */
    public static ExecutableLoaders standard() {
        return standard(List.of());
    }

    /** The vmvx-bytecode-fb loader with {@code extensions} and jvm-static with the builtin kernels. */
    public static ExecutableLoaders standard(List<? extends InstructionExtension> extensions) {
        return of(new JvmStaticLoader(List.of(new BuiltinKernels())), extensions);
    }

    /** The vmvx-bytecode-fb loader with {@code extensions}, then {@code jvmStatic}. */
    public static ExecutableLoaders of(JvmStaticLoader jvmStatic, List<? extends InstructionExtension> extensions) {
        List<InstructionExtension> fixed = List.copyOf(extensions);
        List<ExecutableLoader> loaders = List.of(new VmvxLoader(new Instance(), () -> fixed, List.of()), jvmStatic);
        return new ExecutableLoaders(loaders, Map.of());
    }
}
