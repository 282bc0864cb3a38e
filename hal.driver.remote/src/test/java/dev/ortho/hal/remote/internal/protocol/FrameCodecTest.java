package dev.ortho.hal.remote.internal.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.frontier.Frontier;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** Frame encoding round trips and the reader's refusal of malformed input. */
class FrameCodecTest {
    private static FrameReader read(FrameWriter writer) {
        ByteBuffer frame = writer.finish();
        assertEquals(frame.remaining() - Protocol.LENGTH_BYTES, frame.getInt(0) , "length prefix");
        return new FrameReader(frame.position(Protocol.LENGTH_BYTES).slice());
    }

    @Test
    void everyFieldKindRoundTrips() {
        Frontier frontier = new Frontier(4);
        frontier.insertOrRaise(dev.ortho.hal.frontier.Axis.queue(200, 3, 1, 2), 7);
        frontier.insertOrRaise(dev.ortho.hal.frontier.Axis.host(1, 0, 5), 9);
        frontier.markTainted();
        MemorySegment bulk = MemorySegment.ofArray(new byte[] {1, 2, 3, 4, 5});
        FrameWriter writer = FrameWriter.frame(Protocol.QUEUE_FILL, 42).putU8(200).putI32(-5).putI64(Long.MIN_VALUE)
                .putString("ünïcode").putBytes(bulk, 1, 3).putStatus(new StatusException(StatusCode.DATA_LOSS, "gone"))
                .putFrontier(frontier).putFrontier(null);
        writer.reserveBytes(2).fill((byte) 9);
        FrameReader in = read(writer);
        assertEquals(Protocol.QUEUE_FILL, in.opcode());
        assertEquals(42, in.requestId());
        assertEquals(200, in.u8("u8"));
        assertEquals(-5, in.i32("i32"));
        assertEquals(Long.MIN_VALUE, in.i64("i64"));
        assertEquals("ünïcode", in.string("string"));
        ByteBuffer bytes = in.bytes("bytes");
        assertEquals(3, bytes.remaining());
        assertEquals(2, bytes.get(0));
        StatusException status = in.status("status");
        assertEquals(StatusCode.DATA_LOSS, status.code());
        assertEquals("gone", status.baseMessage());
        Frontier back = in.frontier("frontier");
        assertEquals(frontier, back);
        assertTrue(back.isTainted());
        assertNull(in.frontier("empty frontier"));
        assertEquals(9, in.bytes("reserved").get(1));
        in.end();
    }

    @Test
    void truncationOversizedCountsAndTrailingBytesAreInvalidArgumentNamingTheField() {
        FrameReader short1 = read(FrameWriter.frame(Protocol.RELEASE, 1).putI32(5));
        var e = assertThrows(StatusException.class, () -> short1.i64("handle"));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("handle") && e.getMessage().contains("truncated"), e.getMessage());
        assertTrue(short1.isMalformed());

        FrameReader huge = read(FrameWriter.frame(Protocol.QUEUE_BARRIER, 1).putI32(Protocol.MAX_LIST + 1));
        e = assertThrows(StatusException.class, () -> huge.count("waits"));
        assertTrue(e.getMessage().contains(String.valueOf(Protocol.MAX_LIST + 1)), e.getMessage());

        FrameReader lying = read(FrameWriter.frame(Protocol.BUFFER_WRITE, 1).putI32(1 << 30));
        assertEquals(StatusCode.INVALID_ARGUMENT, assertThrows(StatusException.class, () -> lying.bytes("data")).code());

        FrameReader badUtf8 = read(FrameWriter.frame(Protocol.QUERY_I64, 1).putBytes(new byte[] {(byte) 0xC3}, 0, 1));
        assertEquals(StatusCode.INVALID_ARGUMENT, assertThrows(StatusException.class, () -> badUtf8.string("key")).code());

        FrameReader okStatus = read(FrameWriter.frame(Protocol.ERROR, 1).putI32(0).putString(""));
        assertEquals(StatusCode.INVALID_ARGUMENT, assertThrows(StatusException.class, () -> okStatus.status("e")).code());

        FrameReader trailing = read(FrameWriter.frame(Protocol.PING, 1).putU8(0));
        assertEquals(StatusCode.INVALID_ARGUMENT, assertThrows(StatusException.class, trailing::end).code());

        assertEquals(StatusCode.INVALID_ARGUMENT, assertThrows(StatusException.class,
                () -> new FrameReader(ByteBuffer.allocate(Protocol.HEADER_BYTES - 1))).code());
    }
}
