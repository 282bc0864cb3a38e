package dev.ortho.bench.hal;

import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferView;
import dev.ortho.hal.Device;
import dev.ortho.hal.ElementType;
import dev.ortho.hal.EncodingType;
import dev.ortho.hal.Fence;
import dev.ortho.hal.MappedMemory;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.modules.hal.HalModule;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.vm.Call;
import dev.ortho.vm.CallBuffer;
import dev.ortho.vm.Context;
import dev.ortho.vm.Frame;
import dev.ortho.vm.FrameType;
import dev.ortho.vm.Function;
import dev.ortho.vm.Instance;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.Stack;
import dev.ortho.vm.VmBuffer;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Cost of the {@code hal} module exports a compiled program calls on every invocation, as the
 * interpreter calls them (a prepared {@link Call} begun on a long-lived {@link Stack}), against
 * the same work done directly on the hal.api objects ({@code java}), on a {@code local-sync}
 * device:
 * <ul>
 *   <li>{@code bufferViewAssert}: {@code hal.buffer_view.assert} of a 4x8xf32 view (the input
 *       check every program entry point does), vs. comparing encoding, element type, rank and
 *       dimensions in Java;
 *   <li>{@code fenceAwaitReached}: {@code hal.fence.await} on an already reached fence (the
 *       common end of a synchronous program), vs. {@link Fence#query()};
 *   <li>{@code bufferLoad}: {@code hal.buffer.load} of 4 bytes, vs. a scoped map and read.
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HalModuleCallBenchmark {
    @Param({"ortho", "java"})
    public String impl;

    private Device device;
    private Context context;
    private Stack stack;
    private Frame base;
    private Call assertCall;
    private Call awaitCall;
    private Call loadCall;
    private BufferView view;
    private Buffer buffer;
    private Fence fence;
    private RefObject viewRef;
    private RefObject bufferRef;
    private RefObject fenceRef;
    private VmBuffer message;
    private final long[] expectedDims = {4, 8};

    @Setup(Level.Trial)
    public void setUp() {
        device = CpuDrivers.builder().localSync();
        Instance instance = new Instance();
        context = Context.create(instance, HalModule.create(instance, List.of(device)));
        stack = new Stack(context);
        base = stack.enter(FrameType.EXTERNAL, null, 0, 0, null);

        buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), 128);
        view = BufferView.create(buffer, new long[] {4, 8}, ElementType.FLOAT_32, EncodingType.DENSE_ROW_MAJOR);
        fence = Fence.at(device.createSemaphore(1), 1);
        viewRef = HalRefs.wrap(view);
        bufferRef = HalRefs.wrap(buffer);
        fenceRef = HalRefs.wrap(fence);
        byte[] text = "input 0".getBytes(StandardCharsets.UTF_8);
        message = VmBuffer.allocate(VmBuffer.ACCESS_MUTABLE, text.length, 8);
        message.segment().copyFrom(java.lang.foreign.MemorySegment.ofArray(text));

        assertCall = prepare("hal.buffer_view.assert", 5, 2);
        CallBuffer a = assertCall.arguments();
        a.setI32(0, ElementType.FLOAT_32);
        a.setI32(1, EncodingType.DENSE_ROW_MAJOR);
        a.setI32(2, 2);
        a.setI64(3, 4);
        a.setI64(4, 8);
        a.setRef(0, viewRef);
        a.setRef(1, message);

        awaitCall = prepare("hal.fence.await", 3, 1);
        CallBuffer w = awaitCall.arguments();
        w.setI32(0, -1);
        w.setI64(1, 0);
        w.setI32(2, 1);
        w.setRef(0, fenceRef);

        loadCall = prepare("hal.buffer.load", -1, -1);
        loadCall.arguments().setI64(0, 8);
        loadCall.arguments().setI32(1, 4);
        loadCall.arguments().setRef(0, bufferRef);
    }

    /** A call of {@code name} with argument slots sized for variadic functions ({@code -1}: as the cconv). */
    private Call prepare(String name, int prims, int refs) {
        Function f = context.resolveFunction(name);
        Call call = new Call().prepare(f);
        if (prims >= 0) {
            call.arguments().reset(prims, refs);
        }
        return call;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        stack.leave(base);
        context.close();
        viewRef.release();
        bufferRef.release();
        fenceRef.release();
        message.release();
        view.release();
        buffer.release();
        fence.release();
        device.release();
    }

    @Benchmark
    public int bufferViewAssert() {
        if (impl.equals("ortho")) {
            assertCall.function().module().beginCall(stack, assertCall);
            return 0;
        }
        BufferView v = view;
        if (v.encodingType() != EncodingType.DENSE_ROW_MAJOR || v.elementType() != ElementType.FLOAT_32
                || v.rank() != expectedDims.length) {
            throw new IllegalStateException("mismatch");
        }
        for (int i = 0; i < expectedDims.length; i++) {
            if (v.dim(i) != expectedDims[i]) {
                throw new IllegalStateException("mismatch");
            }
        }
        return 0;
    }

    @Benchmark
    public int fenceAwaitReached() {
        if (impl.equals("ortho")) {
            awaitCall.function().module().beginCall(stack, awaitCall);
            return awaitCall.results().i32(0);
        }
        return fence.query() ? 0 : 17;
    }

    @Benchmark
    public int bufferLoad() {
        if (impl.equals("ortho")) {
            loadCall.function().module().beginCall(stack, loadCall);
            return loadCall.results().i32(0);
        }
        try (MappedMemory mapping = buffer.map(MemoryAccess.READ, 8, 4)) {
            return mapping.contents().get(ValueLayout.JAVA_INT_UNALIGNED, 0);
        }
    }
}
