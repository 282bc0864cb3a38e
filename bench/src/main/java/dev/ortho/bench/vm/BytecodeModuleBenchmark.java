package dev.ortho.bench.vm;

import dev.ortho.vm.Call;
import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.Context;
import dev.ortho.vm.Frame;
import dev.ortho.vm.FrameType;
import dev.ortho.vm.Function;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.NativeModule;
import dev.ortho.vm.Stack;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.VmList;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.bytecode.BytecodeModule;
import dev.ortho.vm.bytecode.ExecutionMode;
import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import dev.ortho.vm.spi.InstructionExtension;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The interpreter's costs in the shape of IREE's {@code module_benchmark}: an empty call from
 * the host, 20 internal calls, 20 calls of a native import, and a counting loop, each in ns per
 * call or per loop iteration.
 *
 * <p>{@code impl=bytecode} runs a VMASM module through {@link BytecodeModule} on a stack kept
 * across invocations (the steady state; {@code emptyInvoke} instead pays a full
 * {@link Invocation#invoke} with list marshalling on the context's reused stack, like
 * {@code iree_vm_invoke}). {@code impl=java} is the peer: the same function written in Java and
 * called directly, the lower bound an interpreter is compared against. {@code impl=compiled} is
 * the bytecode module with {@link ExecutionMode#EAGER}: its functions compiled to JVM classes
 * (import calls go through the callee module's call path, as interpreted).
 *
 * <p>{@code matmul} and {@code matmulIkj} run {@code loops.vmasm} (next to this class; the same
 * file {@code ortho benchmark-module} and, assembled, {@code iree-benchmark-module} run): an
 * {@value #MATMUL}³ f32 matmul written as VM loops with i64 indices and checked
 * {@code vm.buffer} loads, ns per call; the Java peer is the same loop nest over {@code float[]}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class BytecodeModuleBenchmark {
    static final int LOOP = 100_000;
    static final int CALLS = 20;
    static final String SOURCE = """
            vm.module @bench version 0
            vm.type i32
            vm.type !vm.buffer
            vm.import @host.inc cconv "0i_i"

            vm.export @nothing
            vm.func @nothing() -> () {
            ^bb0:
              vm.return
            }

            vm.func @identity(%i0: i32) -> (i32) {
            ^bb0:
              vm.return %i0
            }

            vm.export @internal20
            vm.func @internal20(%i0: i32) -> (i32) {
            ^bb0:
            %CALLS_INTERNAL%
              vm.return %i0
            }

            vm.export @import20
            vm.func @import20(%i0: i32) -> (i32) {
            ^bb0:
            %CALLS_IMPORT%
              vm.return %i0
            }

            vm.export @reduce
            vm.func @reduce(%r0: !vm.buffer, %i0: i32) -> (i32) {
            ^bb0:
              %i1 = vm.const.i32 1
              %i2 = vm.const.i32.zero
              %i3 = vm.const.i32.zero
              vm.br ^bb1()
            ^bb1:
              %i4:5 = vm.ext.i32.i64.u %i2
              %i6 = vm.buffer.load.i32 %r0, %i4:5
              %i3 = vm.add.i32 %i3, %i6
              %i2 = vm.add.i32 %i2, %i1
              %i7 = vm.cmp.lt.i32.s %i2, %i0
              vm.cond_br %i7, ^bb1(), ^bb2()
            ^bb2:
              vm.discard.refs %r0
              vm.return %i3
            }

            vm.export @count
            vm.func @count(%i0: i32) -> (i32) {
            ^bb0:
              %i1 = vm.const.i32 1
              %i2 = vm.const.i32.zero
              vm.br ^bb1()
            ^bb1:
              %i2 = vm.add.i32 %i2, %i1
              %i3 = vm.cmp.lt.i32.s %i2, %i0
              vm.cond_br %i3, ^bb1(), ^bb2()
            ^bb2:
              vm.return %i2
            }
            """;

    static final int MATMUL = 128;

    @Param({"bytecode", "compiled", "java"})
    public String impl;

    /** Read from fields so the arguments are not constants. */
    public int loop = LOOP;
    public int seed = 7;

    private Context context;
    private Stack stack;
    private Frame base;
    private Function nothing;
    private Function internal20;
    private Function import20;
    private Function count;
    private Function reduce;
    private Function matmul;
    private Function matmulIkj;
    private VmBuffer buffer;
    private int[] javaBuffer;
    private VmList outputs;

    @Setup(Level.Trial)
    public void setUp() {
        StringBuilder internal = new StringBuilder();
        StringBuilder imported = new StringBuilder();
        for (int i = 0; i < CALLS; i++) {
            internal.append("  %i0 = vm.call @bench:1(%i0)\n");
            imported.append("  %i0 = vm.call @host.inc(%i0)\n");
        }
        String text = SOURCE.replace("%CALLS_INTERNAL%\n", internal).replace("%CALLS_IMPORT%\n", imported);
        List<InstructionExtension> extensions = List.of(new ExtF32Extension(), new ExtF64Extension());
        Instance instance = new Instance();
        BytecodeModule module = BytecodeModule.create(instance,
                new Assembler(extensions).assemble(text, "bench.vmasm"), extensions,
                BytecodeModule.Options.DEFAULT.withExecution(impl.equals("compiled") ? ExecutionMode.EAGER
                        : ExecutionMode.OFF));
        NativeModule<Void> host = NativeModule.<Void>builder("host", 1)
                .export("inc", "0i_i", (s, call) -> {
                    call.results().setI32(0, call.args().i32(0) + 1);
                    return CallOutcome.COMPLETED;
                })
                .build();
        BytecodeModule loops;
        try (java.io.InputStream in = BytecodeModuleBenchmark.class.getResourceAsStream("loops.vmasm")) {
            loops = BytecodeModule.create(instance, new Assembler(extensions).assemble(
                    new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8), "loops.vmasm"), extensions,
                    BytecodeModule.Options.DEFAULT.withExecution(impl.equals("compiled") ? ExecutionMode.EAGER
                            : ExecutionMode.OFF));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        context = Context.create(instance, host, module, loops);
        matmul = context.resolveFunction("loops.matmul");
        matmulIkj = context.resolveFunction("loops.matmul_ikj");
        nothing = context.resolveFunction("bench.nothing");
        internal20 = context.resolveFunction("bench.internal20");
        import20 = context.resolveFunction("bench.import20");
        count = context.resolveFunction("bench.count");
        reduce = context.resolveFunction("bench.reduce");
        buffer = VmBuffer.allocate(VmBuffer.ACCESS_MUTABLE | VmBuffer.ACCESS_ORIGIN_HOST, 4L * LOOP, 16);
        javaBuffer = new int[LOOP];
        for (int i = 0; i < LOOP; i++) {
            buffer.storeI32(i, i * 7);
            javaBuffer[i] = i * 7;
        }
        stack = new Stack(context);
        base = stack.enter(FrameType.EXTERNAL, null, 0, 0, null);
        outputs = VmList.ofVariants(1);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        stack.leave(base);
        context.close();
    }

    private int call(Function f, int argument) {
        Call call = base.outgoing().prepare(f);
        call.arguments().setI32(0, argument);
        f.module().beginCall(stack, call);
        return call.results().i32(0);
    }

    static int identity(int x) {
        return x;
    }

    static int inc(int x) {
        return x + 1;
    }

    @Benchmark
    public int emptyCall() {
        if (!impl.equals("java")) {
            Call call = base.outgoing().prepare(nothing);
            nothing.module().beginCall(stack, call);
            return 0;
        }
        return identity(seed);
    }

    @Benchmark
    public int emptyInvoke() {
        if (!impl.equals("java")) {
            Invocation.invoke(context, nothing, null, null);
            return 0;
        }
        return identity(seed);
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public int internalCalls() {
        if (!impl.equals("java")) {
            return call(internal20, seed);
        }
        int x = seed;
        for (int i = 0; i < CALLS; i++) {
            x = identity(x);
        }
        return x;
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public int importCalls() {
        if (!impl.equals("java")) {
            return call(import20, seed);
        }
        int x = seed;
        for (int i = 0; i < CALLS; i++) {
            x = inc(x);
        }
        return x;
    }

    /** IREE's {@code buffer_reduce}: sum of {@code vm.buffer.load.i32} over 100,000 elements, ns per element. */
    @Benchmark
    @OperationsPerInvocation(LOOP)
    public int bufferReduce() {
        if (!impl.equals("java")) {
            Call call = base.outgoing().prepare(reduce);
            call.arguments().setRef(0, buffer);
            call.arguments().setI32(0, loop);
            reduce.module().beginCall(stack, call);
            return call.results().i32(0);
        }
        int sum = 0;
        int[] b = javaBuffer;
        for (int i = 0; i < loop; i++) {
            sum += b[i];
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public int loopSum() {
        if (!impl.equals("java")) {
            return call(count, loop);
        }
        int n = loop;
        int i = 0;
        do {
            i += 1;
        } while (i < n);
        return i;
    }

    private float callF32(Function f, int argument) {
        Call call = base.outgoing().prepare(f);
        call.arguments().setI32(0, argument);
        f.module().beginCall(stack, call);
        return call.results().f32(0);
    }

    /** The Java peer of {@code loops.matmul}: the same inputs and loop nest over arrays. */
    static float javaMatmul(int n, boolean ikj) {
        float[] a = new float[n * n];
        float[] b = new float[n * n];
        float[] c = new float[n * n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                a[i * n + j] = 1 + (i + j) % 3;
                b[i * n + j] = 1;
            }
        }
        if (ikj) {
            for (int i = 0; i < n; i++) {
                for (int k = 0; k < n; k++) {
                    float x = a[i * n + k];
                    for (int j = 0; j < n; j++) {
                        c[i * n + j] = x * b[k * n + j] + c[i * n + j];
                    }
                }
            }
        } else {
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    float acc = 0;
                    for (int k = 0; k < n; k++) {
                        acc = a[i * n + k] * b[k * n + j] + acc;
                    }
                    c[i * n + j] = acc;
                }
            }
        }
        return c[n * n - 1];
    }

    /** {@value #MATMUL}³ f32 matmul as VM loops (i-j-k, accumulator in a register), ns per call. */
    @Benchmark
    public float matmul() {
        return impl.equals("java") ? javaMatmul(MATMUL, false) : callF32(matmul, MATMUL);
    }

    /** The same in i-k-j order (accumulator in memory, as IREE's generated kernels), ns per call. */
    @Benchmark
    public float matmulIkj() {
        return impl.equals("java") ? javaMatmul(MATMUL, true) : callF32(matmulIkj, MATMUL);
    }
}
