package dev.ortho.examples;

import dev.ortho.hal.BufferView;
import dev.ortho.hal.Device;
import dev.ortho.hal.Fence;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.remote.internal.client.RemoteDriverFactory;
import dev.ortho.hal.text.BufferViewText;
import dev.ortho.hal.validation.internal.ValidationWrapper;
import dev.ortho.modules.hal.HalModule;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.vm.Context;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Module;
import dev.ortho.vm.VmList;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.BytecodeModule;
import dev.ortho.vm.bytecode.ExecutionMode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Loads an example the way {@code ortho as-module} + {@code run-module} do (assemble the
 * committed {@code .vmasm}, write and re-read the archive, load the bytecode module, link it
 * after the {@code hal} module for one device) and calls its functions in plain Java.
 */
final class ExampleHarness implements AutoCloseable {
    /** The examples folder (the Maven module's base directory). */
    static final Path DIR = Path.of(System.getProperty("basedir", ".")).toAbsolutePath();

    final Instance instance = new Instance();
    final Device device;
    final Context context;

    ExampleHarness(String program, String deviceUri) {
        this(program, deviceUri, false);
    }

    /** {@code program} on {@code target}'s device, the program's module executed as {@code target} says. */
    ExampleHarness(String program, Target target) {
        this(target.device(), MemorySegment.ofArray(assemble(program)), target.program());
    }

    /**
     * @param offHeapArchive load the archive from 64-byte-aligned off-heap memory (as a mapped
     *     {@code .vmfb} file is), so large rodata can be imported into HAL buffers without a
     *     copy; otherwise from a heap array (rodata has no stable address and is copied)
     */
    ExampleHarness(String program, String deviceUri, boolean offHeapArchive) {
        this(deviceUri, offHeapArchive ? offHeap(assemble(program)) : MemorySegment.ofArray(assemble(program)));
    }

    /** Runs the archive in {@code bytes} (for example a {@code .vmfb} file mapped read-only, as {@code run-module} does). */
    ExampleHarness(String deviceUri, MemorySegment bytes) {
        this(deviceUri, bytes, ExecutionMode.OFF);
    }

    /** As {@link #ExampleHarness(String, MemorySegment)} with the program's module run in {@code program}. */
    ExampleHarness(String deviceUri, MemorySegment bytes, ExecutionMode program) {
        device = registry().createDevice(deviceUri);
        Module hal = HalModule.create(instance, List.of(device));
        Module module = BytecodeModule.create(instance, BytecodeArchive.read(bytes), ExampleGenerator.EXTENSIONS,
                BytecodeModule.Options.DEFAULT.withExecution(program));
        context = Context.create(instance, hal, module);
    }

    /** The {@code .vmfb} bytes of {@code program}, as {@code ortho as-module} writes them. */
    static byte[] assemble(String program) {
        return BytecodeArchive.write(new Assembler(ExampleGenerator.EXTENSIONS)
                .assemble(read(DIR.resolve(program + ".vmasm")), program + ".vmasm"));
    }

    private static MemorySegment offHeap(byte[] archive) {
        return Arena.ofAuto().allocate(archive.length, 64).copyFrom(MemorySegment.ofArray(archive));
    }

    /**
     * A device and how the program's own module executes ({@code --vm_compile}); the device URI's
     * {@code vmvx_compile} says how the VMVX dispatch functions execute (compiled by default).
     */
    record Target(String device, ExecutionMode program) {
        @Override
        public String toString() {
            return device + " (program " + program.name().toLowerCase(java.util.Locale.ROOT) + ")";
        }
    }

    /**
     * Where every example runs (a {@code @MethodSource} for the tests); results must be identical
     * on all of them. Issue 16: each execution mode meets each other once without running any
     * example twice: the program's module and the dispatch functions both interpreted (the
     * reference, first), both compiled, compiled program with interpreted kernels and the reverse
     * (the remote server's local-task compiles its kernels), and both lazy on the task executor.
     */
    static List<Target> devices() {
        return List.of(new Target("local-sync://?vmvx_compile=off", ExecutionMode.OFF),
                new Target("validation+local-sync://", ExecutionMode.EAGER),
                new Target("local-task://?vmvx_compile=lazy", ExecutionMode.LAZY),
                new Target("validation+local-task://?vmvx_compile=off", ExecutionMode.EAGER),
                new Target(RemoteServer.shared().uri(), ExecutionMode.OFF));
    }

    /**
     * A registry with local-sync and local-task (builtin kernels and the VMVX loader), the remote
     * driver and the validation wrapper.
     */
    static DriverRegistry registry() {
        DriverRegistry registry = new DriverRegistry();
        registry.register(CpuDrivers.builder().extensions(ExampleGenerator.EXTENSIONS).localSyncFactory());
        registry.register(CpuDrivers.builder().extensions(ExampleGenerator.EXTENSIONS).localTaskFactory());
        registry.register(new RemoteDriverFactory(name -> null));
        registry.registerWrapper(new ValidationWrapper());
        return registry;
    }

    /** A new {@code shape x f32} buffer view on the device holding {@code values}; caller owns it. */
    BufferView f32View(long[] shape, float[] values) {
        StringBuilder text = new StringBuilder();
        for (long d : shape) {
            text.append(d).append('x');
        }
        text.append("f32=");
        for (float v : values) {
            text.append(Float.toString(v)).append(' ');
        }
        return BufferViewText.parse(text.toString().strip(), device);
    }

    /** Calls {@code function} synchronously with {@code args} (borrowed) and returns its results list. */
    VmList call(String function, Object... args) {
        VmList inputs = inputs(args);
        VmList outputs = VmList.ofVariants(1);
        try {
            Invocation.invoke(context, context.resolveFunction(function), inputs, outputs);
        } finally {
            inputs.release();
        }
        return outputs;
    }

    /** An input list of refs to {@code args} (buffer views, fences or null); the caller owns it. */
    static VmList inputs(Object... args) {
        VmList inputs = VmList.ofVariants(args.length);
        for (Object arg : args) {
            inputs.pushRefMove(switch (arg) {
                case null -> null;
                case BufferView view -> HalRefs.wrap(view);
                case Fence fence -> HalRefs.wrap(fence);
                default -> throw new IllegalArgumentException("unsupported argument " + arg);
            });
        }
        return inputs;
    }

    /** The f32 elements of a buffer view result. */
    static float[] floats(BufferView view) {
        long bytes = view.buffer().byteLength();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocate(bytes, 64);
            view.buffer().read(0, host);
            return host.toArray(ValueLayout.JAVA_FLOAT_UNALIGNED);
        }
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        context.close();
        device.close();
    }
}
