package dev.ortho.hal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Allocates the buffers of one device: IREE's {@code iree_hal_allocator_t}. Borrowed from
 * {@link Device#allocator()}; valid while the device is.
 *
 * <p>Thread-safe.
 */
@ProviderType
public interface Allocator {

    /** The heaps the allocator can allocate from, in preference order. */
    List<MemoryHeap> heaps();

    /**
     * How a buffer with {@code params} and {@code size} would fit this device, without
     * allocating: IREE's {@code iree_hal_allocator_query_buffer_compatibility}, returning its
     * {@code iree_hal_buffer_compatibility_t} bits ({@link #COMPATIBILITY_ALLOCATABLE}, ...); 0
     * means the device cannot use such a buffer at all.
     */
    int queryBufferCompatibility(BufferParams params, long size);

    /** The device can allocate buffers with these parameters. */
    int COMPATIBILITY_ALLOCATABLE = 1 << 0;
    /** The device can import host memory with these parameters. */
    int COMPATIBILITY_IMPORTABLE = 1 << 1;
    /** The device can export such buffers to other APIs. */
    int COMPATIBILITY_EXPORTABLE = 1 << 2;
    /** Transfer operations (fill, update, copy) on such buffers are supported. */
    int COMPATIBILITY_QUEUE_TRANSFER = 1 << 10;
    /** Dispatches may use such buffers. */
    int COMPATIBILITY_QUEUE_DISPATCH = 1 << 11;
    /** Using such buffers is possible but slow (e.g. host memory read by dispatches). */
    int COMPATIBILITY_LOW_PERFORMANCE = 1 << 20;

    /**
     * Allocates a zero-filled buffer of {@code size} bytes. The caller owns the reference.
     *
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT for negative sizes or unsupported
     *     parameters (naming them), RESOURCE_EXHAUSTED if the heap cannot hold it
     */
    Buffer allocateBuffer(BufferParams params, long size);

    /**
     * Wraps host memory the caller owns as a buffer without copying. The segment must stay valid
     * until the returned buffer's last release; {@code releaseCallback} (may be null) runs then.
     *
     * @throws dev.ortho.base.StatusException PERMISSION_DENIED if the device cannot use
     *     host memory with {@code params}, INVALID_ARGUMENT if the segment is not 64-byte aligned
     *     or is read-only while {@code params} allow writes
     */
    Buffer importBuffer(BufferParams params, MemorySegment memory, Runnable releaseCallback);

    /**
     * Wraps a direct {@link java.nio.ByteBuffer} the caller owns (its remaining bytes, from
     * {@code position()} to {@code limit()}) without copying, as
     * {@link #importBuffer(BufferParams, MemorySegment, Runnable)}; a read-only buffer can only be
     * imported with read-only access. The ByteBuffer must stay reachable and unchanged in size
     * until the returned buffer's last release.
     *
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT for null or a heap (non-direct)
     *     buffer, which the JVM may move; as the segment overload otherwise
     */
    default Buffer importBuffer(BufferParams params, java.nio.ByteBuffer memory, Runnable releaseCallback) {
        if (memory == null || !memory.isDirect()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "imported ByteBuffer " + memory + " is " + (memory == null ? "null" : "not direct"));
        }
        return importBuffer(params, MemorySegment.ofBuffer(memory), releaseCallback);
    }

    /** Cumulative counters. */
    AllocatorStatistics statistics();

    /** Releases cached but unused memory back to the system. */
    void trim();
}
