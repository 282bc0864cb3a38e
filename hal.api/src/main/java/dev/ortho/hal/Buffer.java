package dev.ortho.hal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.lang.foreign.MemorySegment;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A range of device memory: IREE's {@code iree_hal_buffer_t}. A buffer is either an allocated
 * root or a subspan viewing part of one; a subspan retains its root.
 *
 * <p>Memory is off-heap, 64-bit sized and at least 64-byte aligned, and is freed explicitly when
 * the root's last reference is released (never by the garbage collector). Offsets and lengths
 * passed to buffer methods are relative to this buffer's own range; {@link #WHOLE_BUFFER} as a
 * length means "to the end".
 *
 * <p>Thread-safe for concurrent reads; concurrent writes to overlapping ranges race as they
 * would on any device.
 */
@ProviderType
public interface Buffer extends Resource {

    /** A length meaning "the rest of the buffer from the offset": IREE's IREE_HAL_WHOLE_BUFFER. */
    long WHOLE_BUFFER = -1L;

    /** Mapping mode: a scoped map-access-unmap sequence (IREE_HAL_MAPPING_MODE_SCOPED). */
    int MAPPING_MODE_SCOPED = 1 << 0;

    /** Mapping mode: mapped persistently, accessible by host and device (IREE_HAL_MAPPING_MODE_PERSISTENT). */
    int MAPPING_MODE_PERSISTENT = 1 << 1;

    /** The root allocation this buffer views (itself for a root). Borrowed, not retained. */
    Buffer allocatedBuffer();

    /** Size of the root allocation in bytes. */
    long allocationSize();

    /** Offset of this buffer's range within the root allocation. */
    long byteOffset();

    /** Length of this buffer's range in bytes. */
    long byteLength();

    /** {@link MemoryType} bits of the allocation. */
    int memoryType();

    /** {@link MemoryAccess} bits the buffer allows. */
    int allowedAccess();

    /** {@link BufferUsage} bits the buffer allows. */
    int allowedUsage();

    /**
     * A buffer viewing {@code [offset, offset + length)} of this one; it retains the root. For the
     * whole buffer ({@code offset} 0, all of its length) a driver may return this buffer itself,
     * retained, as IREE's {@code iree_hal_buffer_subspan} does. The caller owns the returned
     * reference.
     *
     * @throws dev.ortho.base.StatusException OUT_OF_RANGE naming the range and this buffer's
     *     length if the range does not fit
     */
    Buffer subspan(long offset, long length);

    /**
     * Maps {@code [offset, offset + length)} for host access: IREE's
     * {@code iree_hal_buffer_map_range}. {@code mode} is {@link #MAPPING_MODE_SCOPED} (a short
     * map-access-unmap sequence; contents are undefined while queue work uses the range) or
     * {@link #MAPPING_MODE_PERSISTENT} (mapped once and kept while host and device both use the
     * buffer; the buffer must allow {@link BufferUsage#MAPPING_PERSISTENT}).
     *
     * <p>The mapping retains this buffer until it is closed, in both modes, so the memory stays
     * valid while mapped even if every other reference is released (IREE's persistent mappings
     * borrow the buffer instead; Ortho never hands out a segment over freed memory). The caller
     * owns the mapping and must {@link MappedMemory#close()} it.
     *
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT for a mode other than the two
     *     above; PERMISSION_DENIED if the buffer is not {@code HOST_VISIBLE}, does not allow
     *     {@code access}, or lacks the mapping usage of {@code mode}; OUT_OF_RANGE for a range
     *     outside the buffer; FAILED_PRECONDITION if its memory was already deallocated
     */
    MappedMemory map(int mode, int access, long offset, long length);

    /**
     * A scoped mapping: {@code map(MAPPING_MODE_SCOPED, access, offset, length)}.
     *
     * @throws dev.ortho.base.StatusException as {@link #map(int, int, long, long)}
     */
    default MappedMemory map(int access, long offset, long length) {
        return map(MAPPING_MODE_SCOPED, access, offset, length);
    }

    /**
     * Copies {@code target.byteSize()} bytes from {@code [offset, ...)} of this buffer into
     * {@code target} (a scoped map-read-unmap).
     *
     * @throws dev.ortho.base.StatusException as {@link #map}
     */
    void read(long offset, MemorySegment target);

    /**
     * Copies {@code source} into this buffer at {@code offset} (a scoped map-write-unmap).
     *
     * @throws dev.ortho.base.StatusException as {@link #map}
     */
    void write(long offset, MemorySegment source);

    /**
     * Fills {@code [offset, offset + length)} with the low {@code patternLength} bytes of
     * {@code pattern}, repeated (little-endian), on the host.
     *
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT if {@code patternLength} is not 1,
     *     2 or 4 or offset/length are not multiples of it; as {@link #map}
     */
    void fill(long offset, long length, int pattern, int patternLength);

    /**
     * Resolves {@code [offset, offset + length)} within a buffer of {@code bufferLength} bytes
     * and returns the length: IREE's {@code iree_hal_buffer_calculate_range}, where
     * {@link #WHOLE_BUFFER} means "to the end" and an empty range at the end is valid. Pure.
     *
     * @param what names the range in error messages (e.g. {@code "fill target"})
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT for a negative length other than
     *     WHOLE_BUFFER; OUT_OF_RANGE naming {@code what}, the range and the buffer length if the
     *     range does not fit
     */
    static long calculateRange(String what, long bufferLength, long offset, long length) {
        return BufferRanges.calculate(what, bufferLength, offset, length);
    }

    /**
     * Copies {@code length} bytes (or {@link #WHOLE_BUFFER}: the smaller of the two remaining
     * ranges) from {@code source} to {@code target} on the host through scoped mappings: IREE's
     * {@code iree_hal_buffer_map_copy}. As {@code memcpy}, the ranges must not overlap.
     *
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT naming both ranges if they
     *     overlap within one allocation, or for a negative length other than WHOLE_BUFFER; as
     *     {@link #map(int, int, long, long)} for either buffer
     */
    static void mapCopy(Buffer source, long sourceOffset, Buffer target, long targetOffset, long length) {
        BufferRanges.requireBuffer(source, "map copy source");
        BufferRanges.requireBuffer(target, "map copy target");
        long resolved = length;
        if (length == WHOLE_BUFFER) {
            resolved = Math.min(BufferRanges.calculate("map copy source", source.byteLength(), sourceOffset, length),
                    BufferRanges.calculate("map copy target", target.byteLength(), targetOffset, length));
        }
        if (resolved == 0) {
            return;
        }
        if (BufferOverlap.test(source, sourceOffset, resolved, target, targetOffset, resolved)
                != BufferOverlap.DISJOINT) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "map copy source range [" + sourceOffset + ", " + (sourceOffset + resolved)
                    + ") and target range [" + targetOffset + ", " + (targetOffset + resolved)
                    + ") overlap within the same allocation");
        }
        try (MappedMemory from = source.map(MemoryAccess.READ, sourceOffset, resolved);
                MappedMemory to = target.map(MemoryAccess.DISCARD_WRITE, targetOffset, resolved)) {
            MemorySegment.copy(from.contents(), 0, to.contents(), 0, resolved);
        }
    }
}
