package dev.ortho.hal.remote.internal.server;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceCapability;
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
 * {@link SessionQueue.QueueOp}s, resolving handles at once so that an unknown handle fails the
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
    static SessionQueue.QueueOp decode(ServerSession session, int opcode, FrameReader in, HandleTable handles,
            Device device, long affinity, SemaphoreList waitList, List<Resource> retained, long[] transferBytes) {
        return switch (opcode) {
            case Protocol.QUEUE_ALLOCA -> waitList.poll()
                    ? alloca(session, in, handles, device, affinity, SemaphoreList.empty())
                    : (device.capabilities() & DeviceCapability.ASYNC_QUEUES) != 0
                            ? alloca(session, in, handles, device, affinity, waitList)
                            : deferredAlloca(session, in, handles, device, affinity, retained);
            case Protocol.QUEUE_DEALLOCA -> {
                long handle = in.i64("buffer");
                Resource buffer = use(handles.bufferLater(handle, "dealloca buffer"), retained);
                long flags = in.i64("flags");
                handles.releaseMemory(handles.takeBytes(handle));
                yield (waits, signals) -> device.queueDealloca(affinity, waits, signals,
                        QueueAllocation.resolve(buffer, "dealloca buffer"), flags);
            }
            case Protocol.QUEUE_FILL -> {
                Resource buffer = use(handles.bufferLater(in.i64("buffer"), "fill target"), retained);
                long offset = in.i64("offset");
                long length = in.i64("length");
                transferBytes[0] = length < 0 ? Long.MAX_VALUE : length;
                int pattern = in.i32("pattern");
                int patternLength = in.i32("pattern length");
                long flags = in.i64("flags");
                yield (waits, signals) -> device.queueFill(affinity, waits, signals,
                        QueueAllocation.resolve(buffer, "fill target"), offset, length, pattern, patternLength, flags);
            }
            case Protocol.QUEUE_UPDATE -> {
                MemorySegment data = MemorySegment.ofBuffer(in.bytes("data"));
                transferBytes[0] = data.byteSize();
                Resource buffer = use(handles.bufferLater(in.i64("buffer"), "update target"), retained);
                long offset = in.i64("offset");
                long flags = in.i64("flags");
                yield (waits, signals) -> device.queueUpdate(affinity, waits, signals, data,
                        QueueAllocation.resolve(buffer, "update target"), offset, flags);
            }
            case Protocol.QUEUE_COPY -> {
                Resource source = use(handles.bufferLater(in.i64("source"), "copy source"), retained);
                long sourceOffset = in.i64("source offset");
                Resource target = use(handles.bufferLater(in.i64("target"), "copy target"), retained);
                long targetOffset = in.i64("target offset");
                long length = in.i64("length");
                transferBytes[0] = length < 0 ? Long.MAX_VALUE : length;
                long flags = in.i64("flags");
                yield (waits, signals) -> device.queueCopy(affinity, waits, signals,
                        QueueAllocation.resolve(source, "copy source"), sourceOffset,
                        QueueAllocation.resolve(target, "copy target"), targetOffset, length, flags);
            }
            case Protocol.QUEUE_DISPATCH -> {
                Executable executable = use(handles.get(in.i64("executable"), Executable.class, "dispatch executable"),
                        retained);
                int function = in.i32("function");
                LaterConfig config = laterConfig(in, handles, retained);
                MemorySegment constants = MemorySegment.ofBuffer(in.bytes("constants"));
                LaterRef[] bindings = laterRefs(in, handles, retained);
                long flags = in.i64("flags");
                yield (waits, signals) -> device.queueDispatch(affinity, waits, signals, executable, function,
                        config.resolve(), constants, LaterRef.resolveAll(bindings), flags);
            }
            case Protocol.QUEUE_EXECUTE -> {
                long handle = in.i64("command buffer");
                CommandBuffer commandBuffer = handle == 0 ? null
                        : use(handles.get(handle, CommandBuffer.class, "executed command buffer"), retained);
                int count = in.count("binding table", 24);
                Resource[] buffers = new Resource[count];
                long[] offsets = new long[count];
                long[] lengths = new long[count];
                for (int i = 0; i < count; i++) {
                    long buffer = in.i64("binding buffer");
                    buffers[i] = buffer == 0 ? null : use(handles.bufferLater(buffer, "binding " + i), retained);
                    offsets[i] = in.i64("binding offset");
                    lengths[i] = in.i64("binding length");
                }
                long flags = in.i64("flags");
                yield (waits, signals) -> {
                    BindingTable table = null;
                    if (commandBuffer != null) {
                        Buffer[] resolved = new Buffer[count];
                        for (int i = 0; i < count; i++) {
                            resolved[i] = buffers[i] == null ? null : QueueAllocation.resolve(buffers[i], "binding " + i);
                        }
                        table = BindingTable.of(resolved, offsets, lengths);
                    }
                    device.queueExecute(affinity, waits, signals, commandBuffer, table, flags);
                };
            }
            case Protocol.QUEUE_BARRIER -> {
                long flags = in.i64("flags");
                yield (waits, signals) -> device.queueBarrier(affinity, waits, signals, flags);
            }
            default -> throw new StatusException(StatusCode.INVALID_ARGUMENT, "unknown queue opcode " + opcode);
        };
    }

    /**
     * Allocates at once so later frames can use the handle, and signals in queue order: the
     * device allocates into a private semaphore and the operation is a barrier from that
     * semaphore to the client's signals. {@code deviceWaits} is empty when the operation's waits
     * are reached (queue order already holds); otherwise they are the operation's waits, which
     * an asynchronous device keeps itself: it returns the buffer now (a command buffer recorded
     * next may name it, as iree-compile's programs do) and commits the memory when they are
     * reached, committing nothing if one fails (its signal then fails, and so do the client's).
     */
    private static SessionQueue.QueueOp alloca(ServerSession session, FrameReader in, HandleTable handles,
            Device device, long affinity, SemaphoreList deviceWaits) {
        long handle = in.i64("buffer");
        BufferParams params = new BufferParams(in.i32("memory type"), in.i32("access"), in.i32("usage"),
                in.i64("queue affinity"), in.i64("alignment"));
        long size = in.i64("size");
        long flags = in.i64("flags");
        try {
            handles.checkNew(handle);
            long charged = HandleTable.footprint(size, params.minAlignment());
            handles.reserveMemory(charged, "queue allocation " + handle);
            TimelineSemaphore allocated = new TimelineSemaphore("alloca " + handle, 0);
            Buffer buffer;
            try {
                buffer = device.queueAlloca(affinity, deviceWaits, SemaphoreList.of(allocated, 1), params,
                        size, flags);
            } catch (RuntimeException e) {
                handles.releaseMemory(charged);
                allocated.release();
                throw e;
            }
            handles.put(handle, buffer, charged);
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

    /**
     * A queue allocation whose waits are not reached yet, on a device that runs queue operations
     * on the caller (it would block here until they are): the handle becomes a
     * {@link QueueAllocation} now and the memory is allocated when the waits are reached, so a
     * failed wait allocates nothing. The client learns the buffer's properties at once from a
     * zero-byte allocation with the same params (which also checks them now, as a local device
     * does before waiting).
     */
    private static SessionQueue.QueueOp deferredAlloca(ServerSession session, FrameReader in, HandleTable handles,
            Device device, long affinity, List<Resource> retained) {
        long handle = in.i64("buffer");
        BufferParams params = new BufferParams(in.i32("memory type"), in.i32("access"), in.i32("usage"),
                in.i64("queue affinity"), in.i64("alignment"));
        long size = in.i64("size");
        long flags = in.i64("flags");
        QueueAllocation pending = new QueueAllocation(handle);
        try {
            handles.checkNew(handle);
            if (size < 0) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "queue allocation size " + size + " is negative");
            }
            Buffer probe = device.allocator().allocateBuffer(params, 0);
            try {
                session.bufferInfo(handle, probe);
            } finally {
                probe.release();
            }
            long charged = HandleTable.footprint(size, params.minAlignment());
            handles.reserveMemory(charged, "queue allocation " + handle);
            handles.put(handle, pending, charged);
        } catch (StatusException e) {
            if (e.code() != StatusCode.ALREADY_EXISTS) {
                handles.poison(handle, e);
            }
            session.send(FrameWriter.frame(Protocol.BUFFER_FAILED, 0).putI64(handle).putStatus(e));
            throw e;
        }
        use(pending, retained);
        return new SessionQueue.QueueOp() {
            @Override
            public void run(SemaphoreList waits, SemaphoreList signals) {
                TimelineSemaphore allocated = new TimelineSemaphore("alloca " + handle, 0);
                try {
                    Buffer buffer;
                    try {
                        buffer = device.queueAlloca(affinity, SemaphoreList.empty(), SemaphoreList.of(allocated, 1),
                                params, size, flags);
                    } catch (StatusException e) {
                        abandon(e);
                        throw e;
                    }
                    pending.commit(buffer);
                    device.queueBarrier(affinity, SemaphoreList.of(allocated, 1), signals, 0);
                } finally {
                    allocated.release();
                }
            }

            @Override
            public void abandon(StatusException status) {
                pending.fail(status);
                handles.releaseMemory(handles.takeBytes(handle));
            }
        };
    }

    /** A buffer reference whose buffer may be a {@link QueueAllocation}, resolved when the operation runs. */
    record LaterRef(Resource buffer, int slot, long offset, long length) {
        BufferRef resolve(String what) {
            return buffer == null ? BufferRef.slot(slot, offset, length)
                    : BufferRef.of(QueueAllocation.resolve(buffer, what), offset, length);
        }

        static BufferRef[] resolveAll(LaterRef[] refs) {
            BufferRef[] resolved = new BufferRef[refs.length];
            for (int i = 0; i < refs.length; i++) {
                resolved[i] = refs[i] == null ? null : refs[i].resolve("dispatch binding " + i);
            }
            return resolved;
        }
    }

    /** A dispatch configuration whose indirect count buffer is resolved when the operation runs. */
    record LaterConfig(int sx, int sy, int sz, int cx, int cy, int cz, LaterRef count, int local) {
        DispatchConfig resolve() {
            return new DispatchConfig(sx, sy, sz, cx, cy, cz, count == null ? null
                    : count.resolve("dispatch workgroup count"), local);
        }
    }

    private static LaterRef laterRef(FrameReader in, HandleTable handles, List<Resource> retained) {
        int kind = in.u8("buffer reference kind");
        return switch (kind) {
            case Protocol.REF_NONE -> null;
            case Protocol.REF_DIRECT -> new LaterRef(use(handles.bufferLater(in.i64("buffer"), "referenced buffer"),
                    retained), 0, in.i64("offset"), in.i64("length"));
            case Protocol.REF_SLOT -> new LaterRef(null, in.i32("slot"), in.i64("offset"), in.i64("length"));
            default -> throw new StatusException(StatusCode.INVALID_ARGUMENT, "buffer reference kind " + kind
                    + " is not 0, 1 or 2");
        };
    }

    private static LaterRef[] laterRefs(FrameReader in, HandleTable handles, List<Resource> retained) {
        int count = in.count("bindings", 1);
        LaterRef[] refs = new LaterRef[count];
        for (int i = 0; i < count; i++) {
            refs[i] = laterRef(in, handles, retained);
        }
        return refs;
    }

    private static LaterConfig laterConfig(FrameReader in, HandleTable handles, List<Resource> retained) {
        int sx = in.i32("workgroup size x");
        int sy = in.i32("workgroup size y");
        int sz = in.i32("workgroup size z");
        int cx = in.i32("workgroup count x");
        int cy = in.i32("workgroup count y");
        int cz = in.i32("workgroup count z");
        LaterRef count = laterRef(in, handles, retained);
        int local = in.i32("dynamic local memory");
        return new LaterConfig(sx, sy, sz, cx, cy, cz, count, local);
    }

    static <T extends Resource> T use(T resource, List<Resource> retained) {
        retained.add(resource);
        return resource;
    }
}
