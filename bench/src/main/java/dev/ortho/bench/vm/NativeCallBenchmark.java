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
import dev.ortho.vm.VmList;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.TimeUnit;
import java.util.function.IntBinaryOperator;
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
 * Cost of a call between two native modules linked in one {@link Context}, in ns per call.
 *
 * <p>{@code nativeToNative}: module {@code b}'s export {@code loop(n)} ({@code 0i_i}) calls its
 * import {@code a.add} ({@code 0ii_i}) {@value #CALLS} times, accumulating; each call prepares the
 * frame's reusable outgoing {@link Call}, fills two i32 arguments, runs it on the stack and reads
 * the i32 result. The host enters {@code b.loop} once per {@value #CALLS} calls on a stack kept
 * across invocations (the steady state of a long-running program). Peers do the same
 * accumulation loop through a Java {@link IntBinaryOperator} ({@code interface}, monomorphic and
 * inlinable) and a non-constant {@link MethodHandle} ({@code methodhandle}, not inlinable).
 *
 * <p>{@code hostInvoke}: one host-to-module call of {@code a.add} through
 * {@link Invocation#invoke} with input/output {@link VmList}s (the context's reused stack, list
 * marshalling), against one direct call for the peers.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class NativeCallBenchmark {
    static final int CALLS = 1000;

    @Param({"ortho", "interface", "methodhandle"})
    public String impl;

    /** Read from a field so the loop bound is not a constant. */
    public int calls = CALLS;
    public int x = 20;
    public int y = 22;

    private Context context;
    private Stack stack;
    private Frame base;
    private Function loop;
    private Function add;
    private VmList inputs;
    private VmList outputs;
    private IntBinaryOperator javaAdd;
    private MethodHandle handleAdd;

    static int add(int a, int b) {
        return a + b;
    }

    @Setup(Level.Trial)
    public void setUp() throws ReflectiveOperationException {
        NativeModule<Void> a = NativeModule.<Void>builder("a", 1)
                .export("add", "0ii_i", (s, call) -> {
                    call.results().setI32(0, call.args().i32(0) + call.args().i32(1));
                    return CallOutcome.COMPLETED;
                })
                .build();
        NativeModule<Void> b = NativeModule.<Void>builder("b", 1)
                .dependency("a", 1, true)
                .importFunction("a.add", "0ii_i", false)
                .export("loop", "0i_i", (s, call) -> {
                    int n = call.args().i32(0);
                    int acc = 0;
                    for (int i = 0; i < n; i++) {
                        Call c = call.prepareImport(0);
                        c.arguments().setI32(0, acc);
                        c.arguments().setI32(1, i);
                        call.invoke(c);
                        acc = c.results().i32(0);
                    }
                    call.results().setI32(0, acc);
                    return CallOutcome.COMPLETED;
                })
                .build();
        context = Context.create(new Instance(), a, b);
        loop = context.resolveFunction("b.loop");
        add = context.resolveFunction("a.add");
        stack = new Stack(context);
        base = stack.enter(FrameType.EXTERNAL, null, 0, 0, null);
        inputs = VmList.ofVariants(2);
        outputs = VmList.ofVariants(1);
        javaAdd = NativeCallBenchmark::add;
        handleAdd = MethodHandles.lookup().findStatic(NativeCallBenchmark.class, "add",
                MethodType.methodType(int.class, int.class, int.class));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        stack.leave(base);
        context.close();
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public int nativeToNative() throws Throwable {
        int n = calls;
        switch (impl) {
            case "ortho" -> {
                Call call = base.outgoing().prepare(loop);
                call.arguments().setI32(0, n);
                loop.module().beginCall(stack, call);
                return call.results().i32(0);
            }
            case "interface" -> {
                IntBinaryOperator f = javaAdd;
                int acc = 0;
                for (int i = 0; i < n; i++) {
                    acc = f.applyAsInt(acc, i);
                }
                return acc;
            }
            default -> {
                MethodHandle h = handleAdd;
                int acc = 0;
                for (int i = 0; i < n; i++) {
                    acc = (int) h.invokeExact(acc, i);
                }
                return acc;
            }
        }
    }

    @Benchmark
    public int hostInvoke() throws Throwable {
        switch (impl) {
            case "ortho" -> {
                inputs.resize(0);
                inputs.pushI32(x);
                inputs.pushI32(y);
                Invocation.invoke(context, add, inputs, outputs);
                return outputs.getI32(0);
            }
            case "interface" -> {
                return javaAdd.applyAsInt(x, y);
            }
            default -> {
                return (int) handleAdd.invokeExact(x, y);
            }
        }
    }
}
