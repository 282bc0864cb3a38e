package dev.ortho.hal.remote.internal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.Device;
import dev.ortho.hal.remote.ServerOptions;
import dev.ortho.hal.remote.internal.protocol.Challenge;
import dev.ortho.hal.remote.internal.protocol.FrameReader;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.remote.internal.transport.BodySink;
import dev.ortho.hal.remote.internal.transport.RecordingTransport;
import dev.ortho.hal.remote.internal.transport.Transport;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Issue 18, the server's side of bulk transfers: a large {@code BUFFER_WRITE} that would succeed
 * is received straight into the buffer's mapped memory ({@link ServerSession#bodySink}); any
 * prefix it cannot serve so (another opcode, an unknown or wrong handle, a range outside the
 * buffer, a length that does not match the frame, a read-only buffer, before
 * authentication, hostile bytes) gets null and is received whole, so the usual decoding reports
 * it; a large {@code BUFFER_READ} is answered from the mapped memory itself, the mapping given
 * back once the transport no longer needs it.
 */
class Issue18ServerBulkTest {
    private static final int SIZE = 1 << 20;
    private static final long MAPPABLE = 101;
    private static final long READ_ONLY = 102;
    private static final long WRITE_ONLY = 103;

    /** Keeps every frame sent, and what the default {@code sendLent} gives back. */
    private static final class Transport18 extends RecordingTransport {
        int lent;

        @Override
        public void sendLent(ByteBuffer head, ByteBuffer payload, Runnable returned) {
            lent++;
            super.sendLent(head, payload, returned);
        }
    }

    private static ByteBuffer body(FrameWriter writer) {
        return writer.finish().position(Protocol.LENGTH_BYTES).slice().order(ByteOrder.LITTLE_ENDIAN);
    }

    private static ByteBuffer prefix(int opcode, long handle, long offset, int length) {
        return ByteBuffer.allocate(Transport.SINK_PREFIX_BYTES).order(ByteOrder.LITTLE_ENDIAN).putInt(opcode)
                .putLong(7).putLong(handle).putLong(offset).putInt(length).flip();
    }

    private static FrameReader lastReply(RecordingTransport transport) {
        ByteBuffer frame = transport.frames.getLast().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        return new FrameReader(frame.position(Protocol.LENGTH_BYTES).slice().order(ByteOrder.LITTLE_ENDIAN));
    }

    private static void allocate(ServerSession session, long handle, int access) {
        BufferParams params = BufferParams.hostLocal();
        session.onFrame(body(FrameWriter.frame(Protocol.BUFFER_ALLOCATE, handle).putI64(handle).putI32(params.type())
                .putI32(access).putI32(params.usage()).putI64(0).putI64(0).putI64(SIZE)));
    }

    @Test
    void largeWritesLandInTheBufferAndEverythingElseIsReceivedWhole() {
        Transport18 transport = new Transport18();
        List<Device> devices = new ArrayList<>();
        var registry = new dev.ortho.hal.DriverRegistry();
        registry.register(dev.ortho.hal.cpu.CpuDrivers.builder().localSyncFactory());
        ServerSession session = new ServerSession(transport, ServerOptions.defaults("k".getBytes(StandardCharsets.UTF_8)),
                () -> {
                    Device device = registry.createDevice("local-sync");
                    devices.add(device);
                    return device;
                }, Runnable::run, s -> { });
        int length = SIZE - 64;
        int bodyLength = length + Protocol.HEADER_BYTES + 20;
        assertNull(session.bodySink(prefix(Protocol.BUFFER_WRITE, MAPPABLE, 0, length), bodyLength), "before HELLO");
        session.onFrame(body(FrameWriter.frame(Protocol.HELLO, 1).putI32(Protocol.MAGIC).putI32(Protocol.VERSION)));
        ByteBuffer helloReply = transport.frames.getLast().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        FrameReader hello = new FrameReader(helloReply.position(Protocol.LENGTH_BYTES).slice()
                .order(ByteOrder.LITTLE_ENDIAN));
        hello.i32("status");
        ByteBuffer nonce = hello.bytes("nonce");
        byte[] nonceBytes = new byte[nonce.remaining()];
        nonce.get(nonceBytes);
        byte[] proof = Challenge.prove("k".getBytes(StandardCharsets.UTF_8), nonceBytes);
        assertNull(session.bodySink(prefix(Protocol.BUFFER_WRITE, MAPPABLE, 0, length), bodyLength), "before AUTH");
        session.onFrame(body(FrameWriter.frame(Protocol.AUTH, 2).putU8(1).putBytes(proof, 0, proof.length)));
        allocate(session, MAPPABLE, MemoryAccess.ALL);
        allocate(session, READ_ONLY, MemoryAccess.READ);
        allocate(session, WRITE_ONLY, MemoryAccess.WRITE);
        assertEquals(0, lastReply(transport).i32("status"));

        // what cannot be served in place: null, never an exception
        assertNull(session.bodySink(prefix(Protocol.BUFFER_FILL, MAPPABLE, 0, length), bodyLength), "another opcode");
        assertNull(session.bodySink(prefix(Protocol.BUFFER_WRITE, 999, 0, length), bodyLength), "unknown handle");
        assertNull(session.bodySink(prefix(Protocol.BUFFER_WRITE, READ_ONLY, 0, length), bodyLength), "read-only");
        assertNull(session.bodySink(prefix(Protocol.BUFFER_WRITE, MAPPABLE, 128, length), bodyLength), "past the end");
        assertNull(session.bodySink(prefix(Protocol.BUFFER_WRITE, MAPPABLE, -1, length), bodyLength), "negative offset");
        assertNull(session.bodySink(prefix(Protocol.BUFFER_WRITE, MAPPABLE, 0, length), bodyLength + 1), "trailing bytes");
        assertNull(session.bodySink(prefix(Protocol.BUFFER_WRITE, MAPPABLE, 0, -5), bodyLength), "negative length");
        Random random = new Random(18);
        for (int i = 0; i < 20_000; i++) {
            ByteBuffer hostile = prefix(Protocol.BUFFER_WRITE, MAPPABLE, 0, length);
            for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
                hostile.put(random.nextInt(Transport.SINK_PREFIX_BYTES), (byte) random.nextInt(256));
            }
            BodySink sink = session.bodySink(hostile, Transport.SINK_MIN_BODY_BYTES + random.nextInt(SIZE));
            if (sink != null) {
                sink.abort(); // a valid one by chance: given back
            }
        }

        // a large write that would succeed lands in place; then a large read is answered from the mapping
        BodySink sink = session.bodySink(prefix(Protocol.BUFFER_WRITE, MAPPABLE, 32, length), bodyLength);
        assertNotNull(sink);
        sink.abort(); // the transport would fill it; here it only gives the mapping back
        session.onFrame(body(FrameWriter.frame(Protocol.BUFFER_FILL, 3).putI64(MAPPABLE).putI64(0).putI64(SIZE)
                .putI32(0x5A).putI32(1)));
        session.onFrame(body(FrameWriter.frame(Protocol.BUFFER_READ, 4).putI64(MAPPABLE).putI64(16).putI64(length)));
        assertEquals(1, transport.lent);
        FrameReader reply = lastReply(transport);
        assertEquals(4, reply.requestId());
        assertEquals(0, reply.i32("status"));
        ByteBuffer data = reply.bytes("data");
        assertEquals(length, data.remaining());
        for (int i = 0; i < length; i += 4099) {
            assertEquals(0x5A, data.get(i));
        }
        reply.end();
        // a read the mapping cannot serve is answered as before
        session.onFrame(body(FrameWriter.frame(Protocol.BUFFER_READ, 5).putI64(WRITE_ONLY).putI64(0).putI64(length)));
        assertEquals(1, transport.lent);
        FrameReader refused = lastReply(transport);
        assertEquals(5, refused.requestId());
        assertEquals(StatusCode.PERMISSION_DENIED.value(), refused.i32("status"));

        session.close(new StatusException(StatusCode.CANCELLED, "done"));
        assertEquals(1, devices.size());
    }
}
