package dev.ortho.bench.examples;

import dev.ortho.examples.ExampleGenerator;
import dev.ortho.examples.MlpWeights;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferView;
import dev.ortho.hal.Device;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.ElementType;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.modules.hal.HalModule;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.vm.Context;
import dev.ortho.vm.Function;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Module;
import dev.ortho.vm.VmList;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.BytecodeModule;
import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import dev.ortho.vm.spi.InstructionExtension;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
 * One inference of the MLP example (784 → 128 → 10, f32) per operation:
 * <ul>
 *   <li>{@code vm}: {@code mlp.predict} invoked synchronously through the VM on {@code deviceUri}
 *       (buffer-view checks, output allocation, command buffer with one VMVX dispatch running
 *       {@code vmvx.mmt4d} twice plus ExtF32 ReLU/softmax loops, fence, result view);</li>
 *   <li>{@code plainJava}: the peer, the same forward pass as plain Java loops over float arrays
 *       (i-k-j matmul, the layout the program uses).</li>
 * </ul>
 * The program is generated from {@code examples/} (system property {@code ortho.examples.dir},
 * default {@code examples}, relative to the working directory: run from the repository root).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class MlpBenchmark {
    private static final List<InstructionExtension> EXTENSIONS = List.of(new ExtF32Extension(), new ExtF64Extension());

    /** The device the VM path runs on (the plain-Java peer ignores it). */
    @Param({"local-sync://", "local-task://"})
    public String deviceUri;

    private Device device;
    private Context context;
    private Function predict;
    private BufferView input;
    private VmList inputs;
    private VmList outputs;
    private float[] x;
    private float[] w1;
    private float[] b1;
    private float[] w2;
    private float[] b2;
    private final float[] hidden = new float[MlpWeights.HIDDEN];
    private final float[] logits = new float[MlpWeights.OUT];

    @Setup
    public void setUp() {
        DriverRegistry registry = new DriverRegistry();
        registry.register(CpuDrivers.builder().extensions(EXTENSIONS).localSyncFactory());
        registry.register(CpuDrivers.builder().extensions(EXTENSIONS).localTaskFactory());
        device = registry.createDevice(deviceUri);
        Instance instance = new Instance();
        Module hal = HalModule.create(instance, List.of(device));
        Path dir = Path.of(System.getProperty("ortho.examples.dir", "examples"));
        byte[] archive = BytecodeArchive.write(new Assembler(EXTENSIONS)
                .assemble(ExampleGenerator.generate(dir, "mlp"), "mlp.vmasm"));
        // 64-byte-aligned off-heap copy, as a mapped .vmfb: parameters are imported, not copied
        MemorySegment bytes = Arena.ofAuto().allocate(archive.length, 64).copyFrom(MemorySegment.ofArray(archive));
        context = Context.create(instance, hal, BytecodeModule.create(instance, BytecodeArchive.read(bytes), EXTENSIONS));
        predict = context.resolveFunction("mlp.predict");
        x = MlpWeights.input(0);
        input = BufferView.allocate(device.allocator(), BufferParams.hostLocal(), new long[] {1, MlpWeights.IN},
                ElementType.FLOAT_32);
        input.buffer().write(0, MemorySegment.ofArray(x));
        inputs = VmList.ofVariants(1);
        inputs.pushRefMove(HalRefs.wrap(input));
        outputs = VmList.ofVariants(1);
        w1 = MlpWeights.w1();
        b1 = MlpWeights.b1();
        w2 = MlpWeights.w2();
        b2 = MlpWeights.b2();
    }

    @TearDown
    public void tearDown() {
        outputs.release();
        inputs.release();
        input.release();
        context.close();
        device.close();
    }

    @Benchmark
    public VmList vm() {
        Invocation.invoke(context, predict, inputs, outputs);
        return outputs;
    }

    @Benchmark
    public float[] plainJava() {
        System.arraycopy(b1, 0, hidden, 0, hidden.length);
        for (int k = 0; k < MlpWeights.IN; k++) {
            float xk = x[k];
            int row = k * MlpWeights.HIDDEN;
            for (int n = 0; n < MlpWeights.HIDDEN; n++) {
                hidden[n] += xk * w1[row + n];
            }
        }
        for (int n = 0; n < hidden.length; n++) {
            hidden[n] = Math.max(hidden[n], 0f);
        }
        System.arraycopy(b2, 0, logits, 0, logits.length);
        for (int k = 0; k < MlpWeights.HIDDEN; k++) {
            float hk = hidden[k];
            int row = k * MlpWeights.OUT;
            for (int n = 0; n < MlpWeights.OUT; n++) {
                logits[n] += hk * w2[row + n];
            }
        }
        float max = logits[0];
        for (float v : logits) {
            max = Math.max(max, v);
        }
        float sum = 0;
        for (int n = 0; n < logits.length; n++) {
            logits[n] = (float) Math.exp(logits[n] - max);
            sum += logits[n];
        }
        for (int n = 0; n < logits.length; n++) {
            logits[n] /= sum;
        }
        return logits;
    }
}
