package dev.ortho.bench.models;

import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.BufferView;
import dev.ortho.hal.Device;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.ElementType;
import dev.ortho.hal.EncodingType;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryType;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.modules.hal.HalModule;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.vm.Context;
import dev.ortho.vm.Function;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Module;
import dev.ortho.vm.VmList;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.BytecodeModule;
import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import dev.ortho.vm.spi.InstructionExtension;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One call of an IREE-compiled model of {@code models/} per operation, made the way
 * {@code ortho benchmark-module} makes it: {@link Invocation#invoke} of the module's function in a
 * context with the {@code hal} module over one device, the inputs uploaded once as buffer views
 * (as the tool does from {@code --input=@file.npy}), the outputs cleared and released per call.
 * Run it with {@code -prof gc} to see the bytes a call allocates ({@code gc.alloc.rate.norm}): the
 * host cost of every IREE-compiled program's call (HAL module imports, fences, buffer views, queue
 * alloca), which dominates the op-zoo graphs (tens of elements each).
 *
 * <p>The peer is IREE's own {@code iree-benchmark-module} on the same {@code .vmfb} and device,
 * measured by {@code bench/models.sh} (a C tool, outside JMH); {@code bench/README.md} puts its
 * numbers beside these. Entries: {@code model/case} of {@code models/data}, the module
 * {@code models/vmfb/<model>.vmvx.vmfb}, function {@code <model>}. Run from the repository root
 * (system property {@code ortho.models.dir}, default {@code models}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ModelCallBenchmark {
    private static final List<InstructionExtension> EXTENSIONS = List.of(new ExtF32Extension(), new ExtF64Extension());

    /** {@code model/case}: the module {@code vmfb/<model>.vmvx.vmfb} and its inputs {@code data/<model>/<case>}. */
    @Param({"zoo_cast/default", "zoo_int/default", "mlp/b1"})
    public String entry;

    /** The device URI. */
    @Param({"local-sync://"})
    public String deviceUri;

    private Device device;
    private Context context;
    private Function function;
    private VmList inputs;
    private VmList outputs;

    @Setup
    public void setUp() throws IOException {
        String model = entry.substring(0, entry.indexOf('/'));
        Path dir = Path.of(System.getProperty("ortho.models.dir", "models"));
        DriverRegistry registry = new DriverRegistry();
        registry.register(CpuDrivers.builder().extensions(EXTENSIONS).localSyncFactory());
        registry.register(CpuDrivers.builder().extensions(EXTENSIONS).localTaskFactory());
        device = registry.createDevice(deviceUri);
        Instance instance = new Instance();
        Module hal = HalModule.create(instance, List.of(device));
        Module program = BytecodeModule.create(instance,
                BytecodeArchive.read(dir.resolve("vmfb/" + model + ".vmvx.vmfb")), EXTENSIONS);
        context = Context.create(instance, hal, program);
        function = context.resolveFunction("module." + model);
        Path data = dir.resolve("data/" + entry);
        inputs = VmList.ofVariants(4);
        for (int i = 0; Files.exists(data.resolve("input" + i + ".npy")); i++) {
            inputs.pushRefMove(HalRefs.wrap(upload(Npy.read(data.resolve("input" + i + ".npy")))));
        }
        outputs = VmList.ofVariants(8);
    }

    /** A dense device-local view holding the array, with the parameters {@code ortho run-module} uses. */
    private BufferView upload(Npy npy) {
        BufferParams params = new BufferParams(MemoryType.DEVICE_LOCAL, MemoryAccess.ALL,
                BufferUsage.DEFAULT | BufferUsage.MAPPING_SCOPED, 0, 0);
        MemorySegment contents = MemorySegment.ofBuffer(npy.data());
        try (Buffer buffer = device.allocator().allocateBuffer(params, contents.byteSize())) {
            BufferView view = BufferView.create(buffer, npy.shape(), elementType(npy.descr()),
                    EncodingType.DENSE_ROW_MAJOR);
            buffer.write(0, contents);
            return view;
        }
    }

    private static int elementType(String descr) {
        return switch (descr) {
            case "f4" -> ElementType.FLOAT_32;
            case "i4" -> ElementType.SINT_32;
            case "i1" -> ElementType.SINT_8;
            case "i8" -> ElementType.SINT_64;
            default -> throw new IllegalArgumentException("no element type for .npy descr " + descr);
        };
    }

    @TearDown
    public void tearDown() {
        outputs.release();
        inputs.release();
        context.close();
        device.close();
    }

    /** One call; the previous call's outputs are released first, as the tool's loop does. */
    @Benchmark
    public VmList call() {
        outputs.clear();
        Invocation.invoke(context, function, inputs, outputs);
        return outputs;
    }
}
