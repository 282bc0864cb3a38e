package dev.ortho.hal.remote.internal.client;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Allocator;
import dev.ortho.hal.AllocatorStatistics;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryHeap;
import dev.ortho.hal.remote.internal.protocol.FrameReader;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The allocator of a remote device. Heaps come with the handshake; allocation round-trips
 * (the caller needs the resolved properties and any RESOURCE_EXHAUSTED at the call; queue
 * allocation is the pipelined path). Imported host memory becomes a remote buffer whose shadow
 * is that memory ({@link RemoteBuffer}). Thread-safe.
 */
final class RemoteAllocator implements Allocator {
    private final RemoteDevice device;
    private final List<MemoryHeap> heaps;

    RemoteAllocator(RemoteDevice device, List<MemoryHeap> heaps) {
        this.device = device;
        this.heaps = List.copyOf(heaps);
    }

    @Override
    public List<MemoryHeap> heaps() {
        return heaps;
    }

    static FrameWriter putParams(FrameWriter out, BufferParams params) {
        return out.putI32(params.type()).putI32(params.access()).putI32(params.usage()).putI64(params.queueAffinity())
                .putI64(params.minAlignment());
    }

    @Override
    public int queryBufferCompatibility(BufferParams params, long size) {
        Checks.notNull(params, "buffer params");
        RemoteConnection connection = device.connection();
        return connection.call(putParams(connection.request(Protocol.ALLOCATOR_COMPATIBILITY), params).putI64(size),
                "queryBufferCompatibility").i32("compatibility");
    }

    @Override
    public Buffer allocateBuffer(BufferParams params, long size) {
        return allocate(params, size, null, null);
    }

    /**
     * Allocates on the server; the client's buffer allows {@code clientAccess} of what the server
     * granted (an import asks the server for WRITE too, to upload its contents, without granting it).
     */
    private RemoteBuffer allocate(BufferParams params, long size, MemorySegment imported, Runnable releaseCallback) {
        return allocate(params, size, imported, releaseCallback, MemoryAccess.ALL);
    }

    private RemoteBuffer allocate(BufferParams params, long size, MemorySegment imported, Runnable releaseCallback,
            int clientAccess) {
        device.requireOpen("allocateBuffer");
        Checks.notNull(params, "buffer params");
        if (size < 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "buffer size " + size + " is negative");
        }
        RemoteConnection connection = device.connection();
        long handle = connection.newHandle();
        FrameReader reply = connection.call(putParams(connection.request(Protocol.BUFFER_ALLOCATE).putI64(handle),
                params).putI64(size), "allocateBuffer of " + size + " bytes");
        int type = reply.i32("memory type");
        int access = reply.i32("access") & clientAccess;
        return new RemoteBuffer(connection, handle, size, type, access, reply.i32("usage"), imported, releaseCallback);
    }

    @Override
    public Buffer importBuffer(BufferParams params, MemorySegment memory, Runnable releaseCallback) {
        Checks.notNull(params, "buffer params");
        Checks.notNull(memory, "imported memory");
        if (!memory.isNative() || memory.address() % 64 != 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "imported memory at address 0x"
                    + Long.toHexString(memory.address()) + " is not native memory aligned to 64 bytes");
        }
        int access = params.access() == 0 ? MemoryAccess.ALL : params.access();
        if (memory.isReadOnly() && MemoryAccess.has(access, MemoryAccess.WRITE)) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "imported memory is read-only but params allow "
                    + MemoryAccess.format(access));
        }
        // the server's copy is filled by an upload, so it must be writable there even when the
        // import is read-only (issue 15: a READ-only import was refused and left zeros); the
        // client's buffer still allows only what the caller asked for
        BufferParams upload = new BufferParams(params.type(), access | MemoryAccess.WRITE, params.usage(),
                params.queueAffinity(), params.minAlignment());
        RemoteBuffer buffer = allocate(upload, memory.byteSize(), memory, releaseCallback, access);
        buffer.push(0, memory);
        return buffer;
    }

    @Override
    public AllocatorStatistics statistics() {
        RemoteConnection connection = device.connection();
        FrameReader reply = connection.call(connection.request(Protocol.ALLOCATOR_STATISTICS), "allocator statistics");
        return new AllocatorStatistics(reply.i64("allocated"), reply.i64("freed"), reply.i64("peak"));
    }

    @Override
    public void trim() {
        RemoteConnection connection = device.connection();
        connection.send(connection.request(Protocol.ALLOCATOR_TRIM));
    }
}
