package dev.ortho.hal.remote.internal.protocol;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.frontier.Frontier;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Reads the payload of one received frame with bounds checks: a read past the end, a negative
 * or oversized length, a list longer than {@link Protocol#MAX_LIST} or malformed UTF-8 is
 * {@code INVALID_ARGUMENT} naming the opcode, the field and the offending value; nothing here
 * can throw an index exception or allocate more than the frame holds. Not thread-safe.
 */
public final class FrameReader {
    private final ByteBuffer body;
    private final int opcode;
    private final long requestId;
    private boolean malformed;

    /**
     * @param body the frame after its length prefix (header and payload); read from its position
     * @throws StatusException INVALID_ARGUMENT if shorter than the header
     */
    public FrameReader(ByteBuffer body) {
        this.body = body.order(ByteOrder.LITTLE_ENDIAN);
        if (body.remaining() < Protocol.HEADER_BYTES) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "frame of " + body.remaining()
                    + " bytes is shorter than the " + Protocol.HEADER_BYTES + "-byte header");
        }
        this.opcode = body.getInt();
        this.requestId = body.getLong();
    }

    /** Whether a read failed because the frame does not follow the protocol (the connection must close). */
    public boolean isMalformed() {
        return malformed;
    }

    private StatusException malformed(String message) {
        malformed = true;
        return new StatusException(StatusCode.INVALID_ARGUMENT, "frame opcode " + opcode + " " + message);
    }

    public int opcode() {
        return opcode;
    }

    public long requestId() {
        return requestId;
    }

    public int remaining() {
        return body.remaining();
    }

    private void need(int bytes, String field) {
        if (body.remaining() < bytes) {
            throw malformed("is truncated: "
                    + field + " needs " + bytes + " bytes at offset " + body.position() + " but "
                    + body.remaining() + " remain");
        }
    }

    public int u8(String field) {
        need(1, field);
        return body.get() & 0xFF;
    }

    public int i32(String field) {
        need(4, field);
        return body.getInt();
    }

    public long i64(String field) {
        need(8, field);
        return body.getLong();
    }

    /** A {@code u32} count in {@code [0, Protocol.MAX_LIST]}. */
    public int count(String field) {
        int count = i32(field);
        if (count < 0 || count > Protocol.MAX_LIST) {
            throw malformed(field
                    + " count " + Integer.toUnsignedString(count) + " is outside [0, " + Protocol.MAX_LIST + "]");
        }
        return count;
    }

    /**
     * A {@link #count} of elements that take at least {@code elementBytes} bytes each, which the
     * rest of the frame must be able to hold: a frame never makes its reader allocate for more
     * elements than it carries (a 30-byte frame declaring 65,536 entries once cost 1 MiB of arrays).
     */
    public int count(String field, int elementBytes) {
        int count = count(field);
        if ((long) count * elementBytes > body.remaining()) {
            throw malformed("is truncated: " + field + " count " + count + " needs at least "
                    + (long) count * elementBytes + " bytes but " + body.remaining() + " remain");
        }
        return count;
    }

    /** A byte block; the returned buffer is a slice of the frame (valid while the frame is). */
    public ByteBuffer bytes(String field) {
        int length = i32(field + " length");
        if (length < 0) {
            throw malformed(field
                    + " length " + Integer.toUnsignedString(length) + " is negative");
        }
        need(length, field);
        ByteBuffer slice = body.slice(body.position(), length).order(ByteOrder.LITTLE_ENDIAN);
        body.position(body.position() + length);
        return slice;
    }

    public String string(String field) {
        ByteBuffer bytes = bytes(field);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(bytes).toString();
        } catch (CharacterCodingException e) {
            throw malformed(field
                    + " is not valid UTF-8");
        }
    }

    /** A status; an OK code or one outside IREE's range is INVALID_ARGUMENT. */
    public StatusException status(String field) {
        int value = i32(field + " code");
        StatusCode code;
        try {
            code = StatusCode.fromValue(value);
        } catch (StatusException e) {
            throw malformed(field
                    + " code " + value + " is outside IREE's range");
        }
        String message = string(field + " message");
        if (code == StatusCode.OK) {
            throw malformed(field
                    + " carries OK where a failure is expected");
        }
        return new StatusException(code, message);
    }

    /** A frontier; null when it has no entries and no taint. */
    public Frontier frontier(String field) {
        int count = u8(field + " count");
        int tainted = u8(field + " taint");
        if (count == 0 && tainted == 0) {
            return null;
        }
        Frontier frontier = new Frontier(Math.max(1, count));
        for (int i = 0; i < count; i++) {
            long axis = i64(field + " axis");
            frontier.insertOrRaise(axis, i64(field + " epoch"));
        }
        if (tainted != 0) {
            frontier.markTainted();
        }
        return frontier;
    }

    /** Fails unless every byte was consumed: trailing garbage is a malformed frame. */
    public void end() {
        if (body.hasRemaining()) {
            throw malformed("has "
                    + body.remaining() + " unexpected trailing bytes");
        }
    }
}
