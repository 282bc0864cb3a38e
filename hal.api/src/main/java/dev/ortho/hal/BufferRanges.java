package dev.ortho.hal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;

/** Range arithmetic behind {@link Buffer#calculateRange}. Pure; not instantiable. */
final class BufferRanges {
    private BufferRanges() {}

    static void requireBuffer(Buffer buffer, String what) {
        if (buffer == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " buffer is null");
        }
    }

    /** IREE's {@code iree_hal_buffer_calculate_range}, returning the resolved length. */
    static long calculate(String what, long bufferLength, long offset, long length) {
        if (length < 0 && length != Buffer.WHOLE_BUFFER) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " length " + length
                    + " is negative (only WHOLE_BUFFER = -1 is allowed)");
        }
        if (offset < 0 || offset > bufferLength) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, what + " offset " + offset
                    + " is outside buffer length " + bufferLength);
        }
        long resolved = length == Buffer.WHOLE_BUFFER ? bufferLength - offset : length;
        if (resolved > bufferLength - offset) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, what + " range [" + offset + ", "
                    + (offset + resolved) + ") exceeds buffer length " + bufferLength);
        }
        return resolved;
    }
}
