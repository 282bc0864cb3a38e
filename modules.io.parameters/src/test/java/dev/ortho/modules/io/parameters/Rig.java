package dev.ortho.modules.io.parameters;

import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.Fence;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.validation.internal.ValidationWrapper;
import dev.ortho.io.parameters.ParameterIndex;
import dev.ortho.modules.hal.HalModule;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.vm.Context;
import dev.ortho.vm.Function;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Module;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.VmList;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A context of the {@code hal} module over one device and the {@code io_parameters} module over
 * an index, and helpers that call the parameter exports as a compiled program does: key tables,
 * key data and span tables as {@code vm.buffer}s, fences on one timeline.
 */
final class Rig implements AutoCloseable {
    /** The memory type, usage and span layout the compiler uses for constant parameters. */
    static final int DEVICE_LOCAL = 0x30;
    static final int CONSTANT_USAGE = 0x80C03; // TRANSFER | DISPATCH_STORAGE | SHARING_IMMUTABLE
    static final int MUTABLE_USAGE = 0x00C03;

    final Instance instance = new Instance();
    final Device device;
    final Context context;
    final Semaphore timeline;
    long value;

    Rig(String deviceUri, ParameterIndex index) {
        this(registry().createDevice(deviceUri), index);
    }

    /** A rig over {@code device} (adopts the caller's reference). */
    Rig(Device device, ParameterIndex index) {
        this.device = device;
        Module hal = HalModule.create(instance, List.of(device));
        Module parameters = ParameterModule.create(instance, index);
        context = Context.create(instance, hal, parameters);
        timeline = device.createSemaphore(0);
    }

    static DriverRegistry registry() {
        DriverRegistry registry = new DriverRegistry();
        registry.register(CpuDrivers.builder().localSyncFactory());
        registry.register(CpuDrivers.builder().localTaskFactory());
        registry.registerWrapper(new ValidationWrapper());
        return registry;
    }

    /** The key table, key data and span table for {@code (key, parameterOffset, bufferOffset, length)} rows. */
    static VmBuffer[] spans(Object[]... rows) {
        ByteBuffer table = ByteBuffer.allocate(8 * rows.length).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer spans = ByteBuffer.allocate(24 * rows.length).order(ByteOrder.LITTLE_ENDIAN);
        StringBuilder data = new StringBuilder();
        for (Object[] row : rows) {
            String key = (String) row[0];
            table.putInt(data.length()).putInt(key.length());
            data.append(key);
            spans.putLong(((Number) row[1]).longValue()).putLong(((Number) row[2]).longValue())
                    .putLong(((Number) row[3]).longValue());
        }
        return new VmBuffer[] {bytes(table.array()), bytes(data.toString().getBytes(StandardCharsets.UTF_8)),
                bytes(spans.array())};
    }

    static VmBuffer bytes(byte[] bytes) {
        VmBuffer buffer = VmBuffer.allocate(VmBuffer.ACCESS_MUTABLE, bytes.length, 16);
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, buffer.segment(), 0, bytes.length);
        return buffer;
    }

    static VmBuffer string(String text) {
        return text == null ? null : bytes(text.getBytes(StandardCharsets.UTF_8));
    }

    /** A fence at the next value of the rig's timeline; the caller owns it. */
    Fence nextFence() {
        return Fence.at(timeline, ++value);
    }

    /**
     * Calls {@code io_parameters.load} with a fresh signal fence (returned in {@code signal[0]}),
     * no wait fence; returns the buffers (the caller owns the list).
     */
    VmList load(String scope, int usage, Fence wait, Fence[] signal, Object[]... rows) {
        VmBuffer[] s = spans(rows);
        Fence fence = nextFence();
        signal[0] = fence;
        VmList in = VmList.ofVariants(11);
        in.pushRefMove(HalRefs.wrap(device));
        in.pushI64(-1);
        in.pushRefMove(wait == null ? null : HalRefs.wrap(wait));
        in.pushRefMove(HalRefs.wrap(fence));
        in.pushRefMove(string(scope));
        in.pushI64(-1);
        in.pushI32(DEVICE_LOCAL);
        in.pushI32(usage);
        for (VmBuffer b : s) {
            in.pushRefMove(b);
        }
        VmList out = VmList.ofVariants(1);
        try {
            Invocation.invoke(context, function("load"), in, out);
            return (VmList) out.getRefRetain(0);
        } finally {
            in.release();
            out.release();
        }
    }

    /** Calls {@code io_parameters.gather} or {@code scatter} ({@code export}) with {@code buffer}. */
    void transfer(String export, String scope, Buffer buffer, Fence wait, Fence signal, Object[]... rows) {
        VmBuffer[] s = spans(rows);
        VmList in = VmList.ofVariants(9);
        in.pushRefMove(HalRefs.wrap(device));
        in.pushI64(-1);
        in.pushRefMove(wait == null ? null : HalRefs.wrap(wait));
        in.pushRefMove(signal == null ? null : HalRefs.wrap(signal));
        if (export.equals("gather")) {
            in.pushRefMove(string(scope));
            in.pushRefMove(HalRefs.wrap(buffer));
        } else {
            in.pushRefMove(HalRefs.wrap(buffer));
            in.pushRefMove(string(scope));
        }
        for (VmBuffer b : s) {
            in.pushRefMove(b);
        }
        try {
            Invocation.invoke(context, function(export), in, null);
        } finally {
            in.release();
        }
    }

    Function function(String export) {
        return context.resolveFunction(ParameterModule.NAME + "." + export);
    }

    /** A host-visible buffer of {@code size} bytes; the caller owns it. */
    Buffer buffer(long size) {
        return device.allocator().allocateBuffer(BufferParams.hostLocal(), size);
    }

    static byte[] read(Buffer buffer) {
        byte[] bytes = new byte[(int) buffer.byteLength()];
        buffer.read(0, MemorySegment.ofArray(bytes));
        return bytes;
    }

    static Buffer buffer(VmList list, int i) {
        RefObject ref = list.getRef(i);
        return HalRefs.buffer(ref);
    }

    static void await(Fence fence) {
        fence.await(Timeout.infinite());
    }

    static byte[] repeat(byte[] pattern, int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = pattern[i % pattern.length];
        }
        return bytes;
    }

    @Override
    public void close() {
        timeline.release();
        context.close();
        device.close();
    }
}
