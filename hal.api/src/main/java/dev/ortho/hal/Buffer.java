package dev.ortho.hal;

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
     * A new buffer viewing {@code [offset, offset + length)} of this one; it retains the root.
     * The caller owns the returned reference.
     *
     * @throws dev.ortho.base.StatusException OUT_OF_RANGE naming the range and this buffer's
     *     length if the range does not fit
     */
    Buffer subspan(long offset, long length);

    /**
     * Maps {@code [offset, offset + length)} for host access with {@link MemoryAccess} bits
     * {@code access}. Close the mapping to unmap.
     *
     * @throws dev.ortho.base.StatusException PERMISSION_DENIED if the buffer is not
     *     {@code HOST_VISIBLE} or does not allow {@code access} or mapping usage; OUT_OF_RANGE
     *     for a range outside the buffer
     */
    MappedMemory map(int access, long offset, long length);

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
}
