package dev.ortho.hal.remote.internal.client;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferOverlap;

/**
 * Argument checks the client makes before anything is sent, so argument errors are thrown at the
 * call (as on a local device) even though the operation itself runs remotely. Pure.
 */
final class Checks {
    private Checks() {}

    /**
     * Resolves {@code [offset, offset + length)} (length may be WHOLE_BUFFER) within
     * {@code limit} bytes; returns the length.
     *
     * @throws StatusException INVALID_ARGUMENT for a negative length other than WHOLE_BUFFER,
     *     OUT_OF_RANGE naming {@code what}, the range and the limit
     */
    static long range(String what, long offset, long length, long limit) {
        if (length < 0 && length != Buffer.WHOLE_BUFFER) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " length " + length
                    + " is negative (only WHOLE_BUFFER = -1 means 'to the end')");
        }
        if (offset < 0 || offset > limit) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, what + " offset " + offset
                    + " is outside buffer length " + limit);
        }
        long resolved = length == Buffer.WHOLE_BUFFER ? limit - offset : length;
        if (resolved > limit - offset) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, what + " range [" + offset + ", " + (offset + resolved)
                    + ") exceeds buffer length " + limit);
        }
        return resolved;
    }

    /** Pattern length 1, 2 or 4, and offset/length multiples of it; INVALID_ARGUMENT otherwise. */
    static void pattern(String what, long offset, long length, int patternLength) {
        if (patternLength != 1 && patternLength != 2 && patternLength != 4) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " pattern length " + patternLength
                    + " is not 1, 2 or 4");
        }
        if (offset % patternLength != 0 || length % patternLength != 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " offset " + offset + " length " + length
                    + " is not a multiple of the pattern length " + patternLength);
        }
    }

    /**
     * IREE's copy rule: INVALID_ARGUMENT naming both ranges if they overlap within one allocation
     * (lengths resolved).
     */
    static void disjoint(Buffer source, long sourceOffset, Buffer target, long targetOffset, long length) {
        if (BufferOverlap.test(source, sourceOffset, length, target, targetOffset, length) != BufferOverlap.DISJOINT) {
            long from = source.byteOffset() + sourceOffset;
            long to = target.byteOffset() + targetOffset;
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "copy source range [" + from + ", " + (from + length)
                    + ") and target range [" + to + ", " + (to + length) + ") overlap within the same allocation");
        }
    }

    static void notNull(Object value, String what) {
        if (value == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " is null");
        }
    }
}
