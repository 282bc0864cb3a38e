package dev.ortho.hal;

/**
 * What a {@link Pool} created by {@link Device#createPool} serves and how much it may hold.
 *
 * @param bufferParams memory type, access and usage of the buffers the pool hands out (as an
 *     {@link Allocator} takes them; its queue affinity and alignment are the pool's defaults)
 * @param quotaBytes the most bytes the pool commits at once, {@link #UNLIMITED} for no limit;
 *     must be positive. An allocation that would exceed it waits for memory the pool's users
 *     return (asynchronous devices) or fails with RESOURCE_EXHAUSTED (when nothing can return
 *     any, e.g. a synchronous device); one larger than the whole quota always fails.
 */
public record PoolParams(BufferParams bufferParams, long quotaBytes) {
    /** No quota. */
    public static final long UNLIMITED = Long.MAX_VALUE;

    /** Device-local buffers, at most {@code quotaBytes} committed. */
    public static PoolParams deviceLocal(long quotaBytes) {
        return new PoolParams(BufferParams.deviceLocal(), quotaBytes);
    }
}
