package dev.ortho.modules.hal.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.modules.hal.BufferViewTraceSink;
import dev.ortho.modules.hal.HalModule;
import dev.ortho.vm.Call;
import dev.ortho.vm.CallBuffer;
import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.Context;
import dev.ortho.vm.Frame;
import dev.ortho.vm.Function;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Module;
import dev.ortho.vm.NativeCall;
import dev.ortho.vm.NativeModule;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.ValueType;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.VmList;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.function.Executable;

/**
 * Calls {@code hal} exports the way a VM program does: a {@code caller} native module imports every
 * export with IREE's calling convention (so linking the context checks names and cconvs), and its
 * {@code call} export packs the argument slots into its frame's outgoing call, begins the callee
 * and, if it yields, yields too; when resumed it collects the results. Tests invoke
 * {@code caller.call} through {@link Invocation}, synchronously or asynchronously.
 *
 * <p>Arguments are given as raw slots: {@code prims} (i32/i64 in order, variadic counts included)
 * and {@code refs} (borrowed). Results own their refs; close them.
 */
final class Harness implements AutoCloseable {
    /** One pending call: import ordinal, argument slots, then the results. */
    private static final class Spec {
        final int ordinal;
        final long[] prims;
        final RefObject[] refs;
        long[] resultPrims;
        RefObject[] resultRefs;

        Spec(int ordinal, long[] prims, RefObject[] refs) {
            this.ordinal = ordinal;
            this.prims = prims;
            this.refs = refs;
        }
    }

    /** The results of one call: primitive slots and owned refs. */
    record Results(long[] prims, RefObject[] refs) implements AutoCloseable {
        int i32(int slot) {
            return (int) prims[slot];
        }

        long i64(int slot) {
            return prims[slot];
        }

        RefObject ref(int slot) {
            return refs[slot];
        }

        /** Moves ref {@code slot} to the caller. */
        RefObject takeRef(int slot) {
            RefObject ref = refs[slot];
            refs[slot] = null;
            return ref;
        }

        @Override
        public void close() {
            for (int i = 0; i < refs.length; i++) {
                RefObject.release(refs[i]);
                refs[i] = null;
            }
        }
    }

    final Instance instance = new Instance();
    final Device device;
    final Module hal;
    final Context context;
    private final List<String> importNames;
    private final Map<Integer, Spec> pending = new ConcurrentHashMap<>();
    private final AtomicInteger nextId = new AtomicInteger();
    private final Function call;

    Harness() {
        this(null);
    }

    Harness(BufferViewTraceSink sink) {
        this(localSync(), sink);
    }

    /** A harness on {@code device}, which it takes over (released by {@link #close}). */
    Harness(Device device, BufferViewTraceSink sink) {
        this.device = device;
        hal = HalModule.create(instance, List.of(device), sink);
        importNames = new ArrayList<>(IreeHalExports.table().keySet());
        NativeModule.Builder<Void> caller = NativeModule.builder("caller", 1);
        for (Map.Entry<String, String> e : IreeHalExports.table().entrySet()) {
            caller.importFunction("hal." + e.getKey(), e.getValue(), false);
        }
        caller.dependency("hal", 7, true);
        caller.export("call", "0i_v", this::run);
        context = Context.create(instance, hal, caller.build());
        call = context.resolveFunction("caller.call");
    }

    /** A new local-sync device with the builtin jvm-static kernels; the caller owns it. */
    static Device localSync() {
        return CpuDrivers.builder().localSync();
    }

    private CallOutcome run(Void state, NativeCall nc) {
        Frame frame = nc.stack().top();
        Spec spec;
        if (!nc.isResume()) {
            spec = pending.remove(nc.args().i32(0));
            frame.setState(spec);
            Call out = nc.prepareImport(spec.ordinal);
            CallBuffer args = out.arguments();
            args.reset(spec.prims.length, spec.refs.length);
            for (int i = 0; i < spec.prims.length; i++) {
                args.setBits(i, spec.prims[i]);
            }
            for (int i = 0; i < spec.refs.length; i++) {
                args.setRef(i, spec.refs[i]);
            }
            if (out.function().module().beginCall(nc.stack(), out) == CallOutcome.DEFERRED) {
                return CallOutcome.DEFERRED;
            }
        } else {
            spec = (Spec) frame.state();
        }
        CallBuffer results = frame.outgoing().results();
        spec.resultPrims = new long[results.primitiveCount()];
        for (int i = 0; i < spec.resultPrims.length; i++) {
            spec.resultPrims[i] = results.bits(i);
        }
        spec.resultRefs = new RefObject[results.refCount()];
        for (int i = 0; i < spec.resultRefs.length; i++) {
            spec.resultRefs[i] = results.takeRef(i);
        }
        return CallOutcome.COMPLETED;
    }

    private VmList prepare(Spec spec) {
        int id = nextId.incrementAndGet();
        pending.put(id, spec);
        VmList inputs = VmList.ofValues(ValueType.I32, 1);
        inputs.pushI32(id);
        return inputs;
    }

    private Spec spec(String export, long[] prims, RefObject[] refs) {
        int ordinal = importNames.indexOf(export);
        if (ordinal < 0) {
            throw new IllegalArgumentException("no hal export " + export);
        }
        return new Spec(ordinal, prims, refs);
    }

    /** Calls {@code hal.<export>} synchronously (waits park the calling thread, as Invocation.invoke does). */
    Results call(String export, long[] prims, RefObject... refs) {
        Spec spec = spec(export, prims, refs);
        VmList inputs = prepare(spec);
        try {
            Invocation.invoke(context, call, inputs, null);
        } finally {
            inputs.release();
        }
        return new Results(spec.resultPrims, spec.resultRefs);
    }

    /** Calls {@code hal.<export>} as an asynchronous invocation on {@code executor}. */
    CompletableFuture<Results> callAsync(Executor executor, String export, long[] prims, RefObject... refs) {
        Spec spec = spec(export, prims, refs);
        VmList inputs = prepare(spec);
        return Invocation.invokeAsync(context, call, inputs, null, executor)
                .whenComplete((v, e) -> inputs.release())
                .thenApply(v -> new Results(spec.resultPrims, spec.resultRefs));
    }

    /** Calls an export that returns nothing. */
    void run(String export, long[] prims, RefObject... refs) {
        call(export, prims, refs).close();
    }

    /** Calls an export expected to fail with {@code code}; returns the failure. */
    StatusException fails(StatusCode code, String export, long[] prims, RefObject... refs) {
        return expect(code, () -> call(export, prims, refs).close());
    }

    static StatusException expect(StatusCode code, Executable body) {
        StatusException e = assertThrows(StatusException.class, body);
        assertEquals(code, e.code(), () -> "unexpected status: " + e);
        return e;
    }

    /** Primitive argument slots. */
    static long[] p(long... values) {
        return values;
    }

    /** A host-created mutable {@code vm.buffer} holding {@code text} as UTF-8; the caller owns it. */
    static VmBuffer string(String text) {
        return bytes(text.getBytes(StandardCharsets.UTF_8));
    }

    /** A host-created mutable {@code vm.buffer} holding {@code bytes}; the caller owns it. */
    static VmBuffer bytes(byte[] bytes) {
        VmBuffer buffer = VmBuffer.allocate(VmBuffer.ACCESS_MUTABLE | VmBuffer.ACCESS_ORIGIN_HOST, bytes.length, 64);
        for (int i = 0; i < bytes.length; i++) {
            buffer.storeI8(i, bytes[i]);
        }
        return buffer;
    }

    @Override
    public void close() {
        context.close();
        device.release();
    }
}
