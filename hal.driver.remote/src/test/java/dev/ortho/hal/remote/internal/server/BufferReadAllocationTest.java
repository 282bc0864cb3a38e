package dev.ortho.hal.remote.internal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.remote.ServerOptions;
import dev.ortho.hal.remote.internal.protocol.Challenge;
import dev.ortho.hal.remote.internal.protocol.FrameReader;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.remote.internal.transport.RecordingTransport;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A {@code BUFFER_READ} that fails allocates no reply for the bytes it would have carried. Before,
 * a read the mapped path could not serve fell back to allocating its whole reply frame (up to
 * 4 MiB off-heap, or 64 KiB on the heap for a small read) and then failed in {@code Buffer.read}:
 * a client could make a server allocate 4 MiB per 36-byte request. Now the range is mapped
 * (checked) first. Allocation is counted (the direct buffer pool, this thread's heap bytes), not timed.
 */
class BufferReadAllocationTest {
    private static final long SMALL = 101;
    private static final long WRITE_ONLY = 102;

    private static ByteBuffer body(FrameWriter writer) {
        return writer.finish().position(Protocol.LENGTH_BYTES).slice().order(ByteOrder.LITTLE_ENDIAN);
    }

    private static FrameReader lastReply(RecordingTransport transport) {
        ByteBuffer frame = transport.frames.getLast().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        return new FrameReader(frame.position(Protocol.LENGTH_BYTES).slice().order(ByteOrder.LITTLE_ENDIAN));
    }

    /** An authenticated session on a local-sync device, with a 64-byte buffer and a 64 KiB write-only one. */
    private static ServerSession session(RecordingTransport transport) {
        byte[] token = "k".getBytes(StandardCharsets.UTF_8);
        var registry = new dev.ortho.hal.DriverRegistry();
        registry.register(dev.ortho.hal.cpu.CpuDrivers.builder().localSyncFactory());
        ServerSession session = new ServerSession(transport, ServerOptions.defaults(token),
                () -> registry.createDevice("local-sync"), Runnable::run, s -> { });
        session.onFrame(body(FrameWriter.frame(Protocol.HELLO, 1).putI32(Protocol.MAGIC).putI32(Protocol.VERSION)));
        FrameReader hello = lastReply(transport);
        hello.i32("status");
        ByteBuffer nonce = hello.bytes("nonce");
        byte[] n = new byte[nonce.remaining()];
        nonce.get(n);
        byte[] proof = Challenge.prove(token, n);
        session.onFrame(body(FrameWriter.frame(Protocol.AUTH, 2).putU8(1).putBytes(proof, 0, proof.length)));
        BufferParams host = BufferParams.hostLocal();
        session.onFrame(body(FrameWriter.frame(Protocol.BUFFER_ALLOCATE, 3).putI64(SMALL).putI32(host.type())
                .putI32(MemoryAccess.ALL).putI32(host.usage()).putI64(0).putI64(0).putI64(64)));
        session.onFrame(body(FrameWriter.frame(Protocol.BUFFER_ALLOCATE, 4).putI64(WRITE_ONLY).putI32(host.type())
                .putI32(MemoryAccess.WRITE).putI32(host.usage()).putI64(0).putI64(0).putI64(64 << 10)));
        assertEquals(0, lastReply(transport).i32("status"));
        return session;
    }

    private static long directBytes() {
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                return pool.getTotalCapacity();
            }
        }
        throw new AssertionError("no direct buffer pool");
    }

    private static long threadHeapBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    private static void read(ServerSession session, RecordingTransport transport, long id, long handle, long offset,
            long length, StatusCode expected) {
        session.onFrame(body(FrameWriter.frame(Protocol.BUFFER_READ, id).putI64(handle).putI64(offset).putI64(length)));
        FrameReader reply = lastReply(transport);
        assertEquals(id, reply.requestId());
        assertEquals(expected.value(), reply.i32("status"), "read " + id);
    }

    @Test
    void largeReadsThatFailAllocateNoReplyFrame() {
        RecordingTransport transport = new RecordingTransport();
        ServerSession session = session(transport);
        read(session, transport, 10, SMALL, 0, Protocol.TRANSFER_CHUNK_BYTES, StatusCode.OUT_OF_RANGE); // warm
        long before = directBytes();
        for (int i = 0; i < 8; i++) {
            read(session, transport, 20 + i, SMALL, 0, Protocol.TRANSFER_CHUNK_BYTES, StatusCode.OUT_OF_RANGE);
            read(session, transport, 40 + i, WRITE_ONLY, 0, Protocol.TRANSFER_CHUNK_BYTES, StatusCode.PERMISSION_DENIED);
            read(session, transport, 60 + i, SMALL, 1L << 40, 1 << 20, StatusCode.OUT_OF_RANGE);
        }
        long allocated = directBytes() - before;
        assertTrue(allocated < 1 << 20, "24 failed reads allocated " + allocated + " off-heap bytes");
        session.close(new StatusException(StatusCode.CANCELLED, "done"));
    }

    @Test
    void smallReadsThatFailAllocateNoReplyFrame() {
        RecordingTransport transport = new RecordingTransport();
        ServerSession session = session(transport);
        read(session, transport, 10, WRITE_ONLY, 0, Protocol.DIRECT_FRAME_BYTES, StatusCode.PERMISSION_DENIED); // warm
        long before = threadHeapBytes();
        for (int i = 0; i < 16; i++) {
            read(session, transport, 20 + i, WRITE_ONLY, 0, Protocol.DIRECT_FRAME_BYTES, StatusCode.PERMISSION_DENIED);
        }
        long allocated = threadHeapBytes() - before;
        // each failure still builds its status (an exception, a message, a reply of a few dozen bytes)
        assertTrue(allocated < 16 * (16 << 10), "16 failed 64 KiB reads allocated " + allocated + " heap bytes");
        // and one that succeeds still answers the bytes
        read(session, transport, 50, SMALL, 8, 16, StatusCode.OK);
        session.close(new StatusException(StatusCode.CANCELLED, "done"));
    }
}
