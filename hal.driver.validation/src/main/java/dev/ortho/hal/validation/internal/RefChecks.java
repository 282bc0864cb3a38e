package dev.ortho.hal.validation.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.hal.Allocator;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.spi.ForwardingBuffer;

/**
 * Checks buffers against what an operation needs (IREE's binding requirements): the buffer is
 * this device's and usable, its memory type, usage and access cover the operation, the device's
 * allocator reports the queue compatibility, the range fits and the offset is aligned. One per
 * device; stateless besides the device and its inner allocator. Thread-safe.
 */
final class RefChecks {
    private final ValidatingDevice device;
    private final Allocator allocator;

    RefChecks(ValidatingDevice device, Allocator innerAllocator) {
        this.device = device;
        this.allocator = innerAllocator;
    }

    /**
     * The buffer the inner device will see, after checking that {@code buffer} may be used here:
     * not null (INVALID_ARGUMENT), not a wrapper of another device (INVALID_ARGUMENT), not released
     * or deallocated (FAILED_PRECONDITION). Plain inner buffers pass; the inner device judges them.
     */
    Buffer usable(String call, String argument, Buffer buffer) {
        if (buffer instanceof ValidatingBuffer validating) {
            if (validating.owner() != device) {
                throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, argument, buffer + " was created by "
                        + validating.owner() + ", not by " + device);
            }
            validating.checkUsable(call, argument);
            return validating.delegate();
        }
        if (buffer == null) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, argument, "buffer is null");
        }
        if (buffer instanceof ForwardingBuffer foreign) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, argument, buffer + " belongs to "
                    + foreign.owner() + ", not to " + device);
        }
        return buffer;
    }

    /**
     * Memory type, usage, access and device compatibility of {@code inner}, the unwrapped
     * {@code buffer}. A validating buffer remembers the allocator's answer for the usage last
     * asked (its type, usage and size never change), so repeated checks skip the query.
     */
    void requirements(String call, String argument, Buffer buffer, Buffer inner, int compatibility, int usage,
            int access, int type) {
        Checks.memoryType(call, argument, inner, type);
        Checks.usage(call, argument, inner, usage);
        Checks.access(call, argument, inner.allowedAccess(), access);
        if (compatibility == 0) {
            return;
        }
        int allowed = buffer instanceof ValidatingBuffer validating
                ? validating.compatibility(allocator, usage)
                : Checks.queryCompatibility(allocator, inner, usage);
        Checks.compatibility(call, argument, allowed, compatibility, usage);
    }

    /**
     * Checks a direct range {@code [offset, offset + length)} of {@code buffer} (length may be
     * WHOLE_BUFFER) of which the operation touches {@code accessLength} bytes from {@code offset}
     * ({@code -1}: the whole range); returns the number of bytes touched.
     */
    long direct(String call, String argument, Buffer buffer, long offset, long length, long accessLength,
            int compatibility, int usage, int access, int type, long alignment) {
        Buffer inner = usable(call, argument, buffer);
        requirements(call, argument, buffer, inner, compatibility, usage, access, type);
        long resolved = Checks.range(call, argument, offset, length, inner.byteLength());
        if (accessLength >= 0 && accessLength > resolved) {
            throw Checks.fail(StatusCode.OUT_OF_RANGE, call, argument, "the operation touches " + accessLength
                    + " bytes but the range [" + offset + ", " + (offset + resolved) + ") holds " + resolved);
        }
        Checks.alignment(call, argument, offset, -1, alignment);
        return accessLength >= 0 ? accessLength : resolved;
    }

    /** {@link #direct} for a reference that must be direct (queue operations take no binding table). */
    long directRef(String call, String argument, BufferRef ref, long accessLength, int compatibility, int usage,
            int access, int type, long alignment) {
        Checks.requireNonNull(ref, call, argument);
        if (ref.isIndirect()) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, argument, "binding table slot "
                    + ref.bufferSlot() + " is referenced but queue operations take direct buffers only");
        }
        return direct(call, argument, ref.buffer(), ref.offset(), ref.length(), accessLength, compatibility, usage,
                access, type, alignment);
    }
}
