package dev.ortho.hal.remote.internal.protocol;

import dev.ortho.base.StatusException;
import dev.ortho.hal.frontier.Frontier;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Builds one frame in a growable little-endian buffer: {@link #begin} writes the header, the
 * {@code put…} methods the payload, {@link #finish} patches the length and returns the frame
 * ready to send. Not thread-safe; one writer per frame.
 */
public final class FrameWriter {
    private ByteBuffer buffer;

    public FrameWriter(int initialCapacity) {
        this(initialCapacity, false);
    }

    private FrameWriter(int initialCapacity, boolean direct) {
        int capacity = Math.max(64, initialCapacity);
        buffer = (direct ? ByteBuffer.allocateDirect(capacity) : ByteBuffer.allocate(capacity))
                .order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * As {@link #frame(int, long, int)} in off-heap memory: for bulk transfers, which a socket
     * then writes without the JDK first copying them into a temporary direct buffer.
     */
    public static FrameWriter directFrame(int opcode, long requestId, int payloadHint) {
        FrameWriter writer = new FrameWriter(Protocol.LENGTH_BYTES + Protocol.HEADER_BYTES + payloadHint, true);
        writer.buffer.putInt(0).putInt(opcode).putLong(requestId);
        return writer;
    }

    /** A writer positioned after the header of a frame {@code opcode} for {@code requestId}. */
    public static FrameWriter frame(int opcode, long requestId) {
        return frame(opcode, requestId, 64);
    }

    /** As {@link #frame(int, long)} with room for {@code payloadHint} payload bytes. */
    public static FrameWriter frame(int opcode, long requestId, int payloadHint) {
        FrameWriter writer = new FrameWriter(Protocol.LENGTH_BYTES + Protocol.HEADER_BYTES + payloadHint);
        writer.buffer.putInt(0).putInt(opcode).putLong(requestId);
        return writer;
    }

    /** A writer of raw payload bytes without a header, to be appended with {@link #putAll}. */
    public static FrameWriter unframed(int initialCapacity) {
        return new FrameWriter(initialCapacity);
    }

    /** Bytes written so far. */
    public int size() {
        return buffer.position();
    }

    /** Appends everything {@code other} has written (its header too, if it has one). */
    public FrameWriter putAll(FrameWriter other) {
        ensure(other.buffer.position());
        buffer.put(other.buffer.duplicate().flip());
        return this;
    }

    private void ensure(int bytes) {
        if (buffer.remaining() < bytes) {
            int needed = buffer.position() + bytes;
            int capacity = Math.max(needed, buffer.capacity() * 2);
            ByteBuffer grown = (buffer.isDirect() ? ByteBuffer.allocateDirect(capacity) : ByteBuffer.allocate(capacity))
                    .order(ByteOrder.LITTLE_ENDIAN);
            buffer.flip();
            grown.put(buffer);
            buffer = grown;
        }
    }

    public FrameWriter putU8(int value) {
        ensure(1);
        buffer.put((byte) value);
        return this;
    }

    public FrameWriter putI32(int value) {
        ensure(4);
        buffer.putInt(value);
        return this;
    }

    public FrameWriter putI64(long value) {
        ensure(8);
        buffer.putLong(value);
        return this;
    }

    public FrameWriter putString(String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        return putBytes(bytes, 0, bytes.length);
    }

    public FrameWriter putBytes(byte[] bytes, int offset, int length) {
        ensure(4 + length);
        buffer.putInt(length).put(bytes, offset, length);
        return this;
    }

    /** {@code u32} length and {@code length} bytes of {@code source} from {@code offset}. */
    public FrameWriter putBytes(MemorySegment source, long offset, int length) {
        ensure(4 + length);
        buffer.putInt(length);
        MemorySegment.copy(source, offset, MemorySegment.ofBuffer(buffer), 0, length); // the view starts at the position
        buffer.position(buffer.position() + length);
        return this;
    }

    /**
     * Writes a {@code u32} length and reserves {@code length} bytes, returned as a segment the
     * caller fills before {@link #finish} (no intermediate copy for bulk transfers).
     */
    public MemorySegment reserveBytes(int length) {
        ensure(4 + length);
        buffer.putInt(length);
        MemorySegment target = MemorySegment.ofBuffer(buffer).asSlice(0, length); // the view starts at the position
        buffer.position(buffer.position() + length);
        return target;
    }

    public FrameWriter putStatus(StatusException status) {
        putI32(status.code().value());
        return putString(status.getMessage() == null ? "" : status.getMessage());
    }

    /** A frontier, or an empty untainted one for null. */
    public FrameWriter putFrontier(Frontier frontier) {
        if (frontier == null) {
            return putU8(0).putU8(0);
        }
        putU8(frontier.size()).putU8(frontier.isTainted() ? 1 : 0);
        for (int i = 0; i < frontier.size(); i++) {
            putI64(frontier.axisAt(i)).putI64(frontier.epochAt(i));
        }
        return this;
    }

    /**
     * As {@link #finish} for a frame whose last {@code payloadBytes} bytes are sent from
     * elsewhere right after these ({@code Transport.sendWithPayload}): the length prefix counts them.
     */
    public ByteBuffer finishWithPayload(int payloadBytes) {
        buffer.putInt(0, buffer.position() - Protocol.LENGTH_BYTES + payloadBytes);
        return buffer.flip();
    }

    /** Patches the length prefix and returns the frame, positioned for reading. */
    public ByteBuffer finish() {
        buffer.putInt(0, buffer.position() - Protocol.LENGTH_BYTES);
        return buffer.flip();
    }
}
