package dev.ortho.hal.cpu.internal.heap;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Range arithmetic and host transfer loops shared by buffers, queues and command buffers. Pure. */
public final class Ranges {
    /** Little-endian 16-bit layout for fill patterns (the HAL's byte order). */
    private static final ValueLayout.OfShort SHORT_LE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Little-endian 32-bit layout for fill patterns. */
    private static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Bytes of pattern written before the fill doubles by copying. */
    private static final int FILL_SEED_BYTES = 64;

    private Ranges() {}

    /**
     * Whether {@link #resolve} accepts {@code offset} and {@code length} against {@code limit}
     * (it throws exactly when this is false); lets hot paths skip building a message.
     */
    public static boolean fits(long offset, long length, long limit) {
        if ((length < 0 && length != Buffer.WHOLE_BUFFER) || offset < 0 || offset > limit) {
            return false;
        }
        return (length == Buffer.WHOLE_BUFFER ? limit - offset : length) <= limit - offset;
    }

    /**
     * Resolves {@code [offset, offset + length)} (length may be {@link Buffer#WHOLE_BUFFER})
     * within a range of {@code limit} bytes and returns the length.
     *
     * @throws StatusException INVALID_ARGUMENT for a negative length other than WHOLE_BUFFER,
     *     OUT_OF_RANGE naming {@code what}, the range and the limit if it does not fit
     */
    public static long resolve(String what, long offset, long length, long limit) {
        if (length < 0 && length != Buffer.WHOLE_BUFFER) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " length " + length
                    + " is negative (only WHOLE_BUFFER = -1 is allowed)");
        }
        if (offset < 0 || offset > limit) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, what + " offset " + offset
                    + " is outside buffer length " + limit);
        }
        long resolved = length == Buffer.WHOLE_BUFFER ? limit - offset : length;
        if (resolved > limit - offset) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, what + " range [" + offset + ", "
                    + (offset + resolved) + ") exceeds buffer length " + limit);
        }
        return resolved;
    }

    /**
     * Checks a fill's pattern length and that offset and length are multiples of it.
     *
     * @throws StatusException INVALID_ARGUMENT naming the value that is wrong
     */
    public static void checkPattern(long offset, long length, int patternLength) {
        if (patternLength != 1 && patternLength != 2 && patternLength != 4) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "fill pattern length "
                    + patternLength + " is not 1, 2 or 4");
        }
        if (offset % patternLength != 0 || length % patternLength != 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "fill range offset " + offset
                    + " length " + length + " is not a multiple of the pattern length " + patternLength);
        }
    }

    /**
     * Fills {@code target} with the low {@code patternLength} bytes of {@code pattern} repeated
     * (little-endian). The caller has checked the pattern with {@link #checkPattern}.
     */
    public static void fill(MemorySegment target, int pattern, int patternLength) {
        long length = target.byteSize();
        if (patternLength == 1) {
            target.fill((byte) pattern);
            return;
        }
        long seed = Math.min(length, FILL_SEED_BYTES);
        for (long i = 0; i < seed; i += patternLength) {
            if (patternLength == 2) {
                target.set(SHORT_LE, i, (short) pattern);
            } else {
                target.set(INT_LE, i, pattern);
            }
        }
        for (long filled = seed; filled < length; filled *= 2) { // doubling copies: seed is a multiple of 4
            MemorySegment.copy(target, 0, target, filled, Math.min(filled, length - filled));
        }
    }

    /**
     * Fills {@code [offset, offset + length)} of {@code memory} as {@link #fill(MemorySegment, int, int)}
     * does, without slicing it (nothing is allocated): a seed of up to 64 bytes written with the
     * pattern, then doubling copies of it. The caller has checked the pattern and the range.
     */
    public static void fill(MemorySegment memory, long offset, long length, int pattern, int patternLength) {
        long seed = Math.min(length, FILL_SEED_BYTES);
        for (long i = 0; i < seed; i += patternLength) {
            if (patternLength == 1) {
                memory.set(ValueLayout.JAVA_BYTE, offset + i, (byte) pattern);
            } else if (patternLength == 2) {
                memory.set(SHORT_LE, offset + i, (short) pattern);
            } else {
                memory.set(INT_LE, offset + i, pattern);
            }
        }
        for (long filled = seed; filled < length; filled *= 2) { // seed is a multiple of the pattern length
            MemorySegment.copy(memory, offset, memory, offset + filled, Math.min(filled, length - filled));
        }
    }
}
