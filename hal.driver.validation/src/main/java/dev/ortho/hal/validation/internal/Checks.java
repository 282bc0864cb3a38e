package dev.ortho.hal.validation.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Allocator;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryType;
import dev.ortho.hal.Semaphore;

/**
 * The argument checks shared by command buffers, queue operations and buffers, with IREE's
 * status codes (IREE {@code hal/buffer.c} and {@code hal/command_buffer_validation.c}): memory
 * type, usage and device compatibility are PERMISSION_DENIED, ranges OUT_OF_RANGE, malformed
 * arguments and misalignment INVALID_ARGUMENT. Every message names the call, the argument, the
 * offending value and the limit. Stateless.
 */
final class Checks {
    /** Largest inline update a command buffer records: IREE_HAL_COMMAND_BUFFER_MAX_UPDATE_SIZE. */
    static final long MAX_UPDATE_SIZE = 64 * 1024;
    /** Bytes of an indirect workgroup count: three uint32. */
    static final long WORKGROUP_COUNT_BYTES = 12;

    private Checks() {}

    static StatusException fail(StatusCode code, String call, String argument, String detail) {
        return new StatusException(code, call + " " + argument + ": " + detail);
    }

    static void requireNonNull(Object value, String call, String argument) {
        if (value == null) {
            throw fail(StatusCode.INVALID_ARGUMENT, call, argument, "is null");
        }
    }

    /**
     * The length of {@code [offset, offset + length)} within {@code available} bytes, resolving
     * {@link Buffer#WHOLE_BUFFER} (IREE's {@code iree_hal_buffer_calculate_range}).
     *
     * @throws StatusException OUT_OF_RANGE naming the range and {@code available} (a negative
     *     offset or length counts as out of range, as IREE's unsigned sizes would be)
     */
    static long range(String call, String argument, long offset, long length, long available) {
        if (offset < 0 || (length < 0 && length != Buffer.WHOLE_BUFFER)) {
            throw fail(StatusCode.OUT_OF_RANGE, call, argument, "offset " + offset + " length " + length
                    + " is negative, outside the " + available + "-byte range");
        }
        if (offset > available) {
            throw fail(StatusCode.OUT_OF_RANGE, call, argument, "offset " + offset + " is past the end of the "
                    + available + "-byte range");
        }
        if (length == Buffer.WHOLE_BUFFER) {
            return available - offset;
        }
        if (length > available - offset) {
            throw fail(StatusCode.OUT_OF_RANGE, call, argument, "range [" + offset + ", "
                    + (offset + length) + ") exceeds the " + available + "-byte length");
        }
        return length;
    }

    /** IREE's {@code iree_hal_buffer_validate_memory_type}: every required bit present. */
    static void memoryType(String call, String argument, Buffer buffer, int required) {
        int actual = buffer.memoryType();
        if ((actual & required) != required) {
            throw fail(StatusCode.PERMISSION_DENIED, call, argument, "memory type "
                    + MemoryType.format(actual) + " lacks " + MemoryType.format(required & ~actual)
                    + " (the operation requires " + MemoryType.format(required) + ")");
        }
    }

    /** IREE's {@code iree_hal_buffer_validate_usage}: every required bit allowed. */
    static void usage(String call, String argument, Buffer buffer, int required) {
        int allowed = buffer.allowedUsage();
        if ((allowed & required) != required) {
            throw fail(StatusCode.PERMISSION_DENIED, call, argument, "usage " + BufferUsage.format(allowed)
                    + " lacks " + BufferUsage.format(required & ~allowed) + " (the operation requires "
                    + BufferUsage.format(required) + ")");
        }
    }

    /** IREE's {@code iree_hal_buffer_validate_access}: ANY passes; READ or WRITE needed; all allowed. */
    static void access(String call, String argument, int allowed, int required) {
        if ((required & MemoryAccess.ANY) != 0) {
            return;
        }
        if ((required & (MemoryAccess.READ | MemoryAccess.WRITE)) == 0) {
            throw fail(StatusCode.INVALID_ARGUMENT, call, argument, "access " + MemoryAccess.format(required)
                    + " names neither READ nor WRITE");
        }
        if ((allowed & required) != required) {
            throw fail(StatusCode.PERMISSION_DENIED, call, argument, "access " + MemoryAccess.format(required)
                    + " is not allowed (the buffer allows " + MemoryAccess.format(allowed) + ")");
        }
    }

    /**
     * The compatibility bits {@code allocator} reports for {@code buffer}'s memory type, size and
     * the part of {@code usage} the buffer allows (IREE's {@code validate_buffer_compatibility}
     * query).
     */
    static int queryCompatibility(Allocator allocator, Buffer buffer, int usage) {
        return allocator.queryBufferCompatibility(
                new BufferParams(buffer.memoryType(), 0, buffer.allowedUsage() & usage, 0, 0),
                buffer.allocationSize());
    }

    /** PERMISSION_DENIED unless {@code allowed} has every {@code required} compatibility bit. */
    static void compatibility(String call, String argument, int allowed, int required, int usage) {
        if ((allowed & required) != required) {
            throw fail(StatusCode.PERMISSION_DENIED, call, argument, "the device cannot use this buffer for usage "
                    + BufferUsage.format(usage) + " (allocator compatibility 0x" + Integer.toHexString(allowed)
                    + ", requires 0x" + Integer.toHexString(required) + ")");
        }
    }

    /** Offset (and length, unless -1) a multiple of {@code alignment}; INVALID_ARGUMENT otherwise. */
    static void alignment(String call, String argument, long offset, long length, long alignment) {
        if (alignment > 1 && (offset % alignment != 0 || (length >= 0 && length % alignment != 0))) {
            throw fail(StatusCode.INVALID_ARGUMENT, call, argument, "offset " + offset
                    + (length >= 0 ? " length " + length : "") + " is not a multiple of " + alignment);
        }
    }

    /** A semaphore payload in {@code [0, Semaphore.MAX_VALUE]}; OUT_OF_RANGE otherwise. */
    static void payload(String call, String argument, long value) {
        if (value < 0 || value > Semaphore.MAX_VALUE) {
            throw fail(StatusCode.OUT_OF_RANGE, call, argument, "value " + value + " is outside [0, "
                    + Semaphore.MAX_VALUE + "]");
        }
    }

    /** Whether {@code [aOffset, aOffset + aLength)} and {@code [bOffset, ...)} intersect. */
    static boolean overlaps(long aOffset, long aLength, long bOffset, long bLength) {
        return aLength > 0 && bLength > 0 && aOffset < bOffset + bLength && bOffset < aOffset + aLength;
    }
}
