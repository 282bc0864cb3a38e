package dev.ortho.hal;

/**
 * Cumulative allocation counters of an {@link Allocator}: IREE's
 * {@code iree_hal_allocator_statistics_t}, host and device memory combined.
 *
 * @param bytesAllocated bytes allocated over the allocator's life
 * @param bytesFreed bytes freed over the allocator's life
 * @param bytesPeak the most bytes live at once
 */
public record AllocatorStatistics(long bytesAllocated, long bytesFreed, long bytesPeak) {

    /** Bytes live now. */
    public long bytesLive() {
        return bytesAllocated - bytesFreed;
    }
}
