package dev.ortho.hal.remote.internal.server;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.Device;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Executable;
import dev.ortho.hal.Resource;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.remote.internal.protocol.FrameReader;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Decodes the operation part of queue frames (after affinity, waits and signals) into
 * {@link ServerSession.QueueOp}s, resolving handles at once so that an unknown handle fails the
 * operation when it arrives. Everything an operation uses is added to {@code retained}.
 */
final class QueueDecoder {
    private QueueDecoder() {}

    /** Largest transfer the server runs on its I/O thread when the operation's waits are already reached. */
    static final long INLINE_BYTES = 64 * 1024;

    /**
     * Whether a decoded operation is cheap enough to run on the I/O thread when nothing holds it
     * (a barrier, an allocation, a transfer of at most {@link #INLINE_BYTES}); dispatches and
     * command buffers always go to the executor threads.
     */
    static boolean cheap(int opcode, long transferBytes) {
        return switch (opcode) {
            case Protocol.QUEUE_BARRIER, Protocol.QUEUE_ALLOCA, Protocol.QUEUE_DEALLOCA -> true;
            case Protocol.QUEUE_FILL, Protocol.QUEUE_UPDATE, Protocol.QUEUE_COPY -> transferBytes <= INLINE_BYTES;
            default -> false;
        };
    }

    /**
     * @param transferBytes receives the bytes a transfer touches at index 0 (0 for other operations)
     */
    static ServerSession.QueueOp decode(ServerSession session, int opcode, FrameReader in, HandleTable handles,
            Device device, long affinity, List<Resource> retained, long[] transferBytes) {
        return switch (opcode) {
            case Protocol.QUEUE_ALLOCA -> alloca(session, in, handles, device, affinity);
            case Protocol.QUEUE_DEALLOCA -> {
                long handle = in.i64("buffer");
                Buffer buffer = use(handles.get(handle, Buffer.class, "dealloca buffer"), retained);
                long flags = in.i64("flags");
                handles.releaseMemory(handles.takeBytes(handle));
                yield (waits, signals) -> device.queueDealloca(affinity, waits, signals, buffer, flags);
            }
            case Protocol.QUEUE_FILL -> {
                Buffer buffer = use(handles.get(in.i64("buffer"), Buffer.class, "fill target"), retained);
                long offset = in.i64("offset");
                long length = in.i64("length");
                transferBytes[0] = length < 0 ? Long.MAX_VALUE : length;
                int pattern = in.i32("pattern");
                int patternLength = in.i32("pattern length");
                long flags = in.i64("flags");
                yield (waits, signals) -> device.queueFill(affinity, waits, signals, buffer, offset, length, pattern,
                        patternLength, flags);
            }
            case Protocol.QUEUE_UPDATE -> {
                MemorySegment data = MemorySegment.ofBuffer(in.bytes("data"));
                transferBytes[0] = data.byteSize();
                Buffer buffer = use(handles.get(in.i64("buffer"), Buffer.class, "update target"), retained);
                long offset = in.i64("offset");
                long flags = in.i64("flags");
                yield (waits, signals) -> device.queueUpdate(affinity, waits, signals, data, buffer, offset, flags);
            }
            case Protocol.QUEUE_COPY -> {
                Buffer source = use(handles.get(in.i64("source"), Buffer.class, "copy source"), retained);
                long sourceOffset = in.i64("source offset");
                Buffer target = use(handles.get(in.i64("target"), Buffer.class, "copy target"), retained);
                long targetOffset = in.i64("target offset");
                long length = in.i64("length");
                transferBytes[0] = length < 0 ? Long.MAX_VALUE : length;
                long flags = in.i64("flags");
                yield (waits, signals) -> device.queueCopy(affinity, waits, signals, source, sourceOffset, target,
                        targetOffset, length, flags);
            }
            case Protocol.QUEUE_DISPATCH -> {
                Executable executable = use(handles.get(in.i64("executable"), Executable.class, "dispatch executable"),
                        retained);
                int function = in.i32("function");
                DispatchConfig config = config(in, handles, retained);
                MemorySegment constants = MemorySegment.ofBuffer(in.bytes("constants"));
                BufferRef[] bindings = refs(in, handles, retained);
                long flags = in.i64("flags");
                yield (waits, signals) -> device.queueDispatch(affinity, waits, signals, executable, function, config,
                        constants, bindings, flags);
            }
            case Protocol.QUEUE_EXECUTE -> {
                long handle = in.i64("command buffer");
                CommandBuffer commandBuffer = handle == 0 ? null
                        : use(handles.get(handle, CommandBuffer.class, "executed command buffer"), retained);
                int count = in.count("binding table");
                Buffer[] buffers = new Buffer[count];
                long[] offsets = new long[count];
                long[] lengths = new long[count];
                for (int i = 0; i < count; i++) {
                    long buffer = in.i64("binding buffer");
                    buffers[i] = buffer == 0 ? null : use(handles.get(buffer, Buffer.class, "binding " + i), retained);
                    offsets[i] = in.i64("binding offset");
                    lengths[i] = in.i64("binding length");
                }
                long flags = in.i64("flags");
                BindingTable table = commandBuffer == null ? null : BindingTable.of(buffers, offsets, lengths);
                yield (waits, signals) -> device.queueExecute(affinity, waits, signals, commandBuffer, table, flags);
            }
            case Protocol.QUEUE_BARRIER -> {
                long flags = in.i64("flags");
                yield (waits, signals) -> device.queueBarrier(affinity, waits, signals, flags);
            }
            default -> throw new StatusException(StatusCode.INVALID_ARGUMENT, "unknown queue opcode " + opcode);
        };
    }

    /**
     * Allocates at once (so later frames can use the handle) and signals in queue order: the
     * device allocates with no waits into a private semaphore, and the operation is a barrier from
     * the client's waits and that semaphore to the client's signals.
     */
    private static ServerSession.QueueOp alloca(ServerSession session, FrameReader in, HandleTable handles,
            Device device, long affinity) {
        long handle = in.i64("buffer");
        BufferParams params = new BufferParams(in.i32("memory type"), in.i32("access"), in.i32("usage"),
                in.i64("queue affinity"), in.i64("alignment"));
        long size = in.i64("size");
        long flags = in.i64("flags");
        try {
            handles.checkNew(handle);
            handles.reserveMemory(size, "queue allocation " + handle);
            TimelineSemaphore allocated = new TimelineSemaphore("alloca " + handle, 0);
            Buffer buffer;
            try {
                buffer = device.queueAlloca(affinity, SemaphoreList.empty(), SemaphoreList.of(allocated, 1), params,
                        size, flags);
            } catch (RuntimeException e) {
                handles.releaseMemory(size);
                allocated.release();
                throw e;
            }
            handles.put(handle, buffer, size);
            session.bufferInfo(handle, buffer);
            return (waits, signals) -> {
                try {
                    device.queueBarrier(affinity, SemaphoreList.of(allocated, 1), signals, 0);
                } finally {
                    allocated.release();
                }
            };
        } catch (StatusException e) {
            if (e.code() != StatusCode.ALREADY_EXISTS) {
                handles.poison(handle, e);
            }
            session.send(FrameWriter.frame(Protocol.BUFFER_FAILED, 0).putI64(handle).putStatus(e));
            throw e;
        }
    }

    static <T extends Resource> T use(T resource, List<Resource> retained) {
        retained.add(resource);
        return resource;
    }

    static BufferRef ref(FrameReader in, HandleTable handles, List<Resource> retained) {
        int kind = in.u8("buffer reference kind");
        return switch (kind) {
            case Protocol.REF_NONE -> null;
            case Protocol.REF_DIRECT -> {
                Buffer buffer = use(handles.get(in.i64("buffer"), Buffer.class, "referenced buffer"), retained);
                yield BufferRef.of(buffer, in.i64("offset"), in.i64("length"));
            }
            case Protocol.REF_SLOT -> BufferRef.slot(in.i32("slot"), in.i64("offset"), in.i64("length"));
            default -> throw new StatusException(StatusCode.INVALID_ARGUMENT, "buffer reference kind " + kind
                    + " is not 0, 1 or 2");
        };
    }

    static BufferRef[] refs(FrameReader in, HandleTable handles, List<Resource> retained) {
        int count = in.count("bindings");
        BufferRef[] refs = new BufferRef[count];
        for (int i = 0; i < count; i++) {
            refs[i] = ref(in, handles, retained);
        }
        return refs;
    }

    static DispatchConfig config(FrameReader in, HandleTable handles, List<Resource> retained) {
        int sx = in.i32("workgroup size x");
        int sy = in.i32("workgroup size y");
        int sz = in.i32("workgroup size z");
        int cx = in.i32("workgroup count x");
        int cy = in.i32("workgroup count y");
        int cz = in.i32("workgroup count z");
        BufferRef countRef = ref(in, handles, retained);
        int local = in.i32("dynamic local memory");
        return new DispatchConfig(sx, sy, sz, cx, cy, cz, countRef, local);
    }
}
