package dev.ortho.hal;

/**
 * A snapshot of a {@link Pool}'s counters: IREE's {@code iree_hal_pool_stats_t} in Ortho's terms.
 * Counters are cumulative over the pool's life; byte figures are current unless named peak.
 * Taken under the pool's lock, so the figures are consistent with each other.
 *
 * @param bytesReserved bytes held by live allocations (allocated and not yet deallocated)
 * @param bytesCommitted bytes the pool holds from the system: reserved plus idle, reusable memory
 * @param bytesPeak the most bytes committed at once
 * @param reservationCount allocations served
 * @param freshCount allocations served with newly committed memory
 * @param waitsAvoided allocations that reused freed memory whose death frontier the allocating
 *     queue already dominated: reuse with no wait at all
 * @param waitsInserted allocations that reused freed memory after ordering themselves behind its
 *     death frontier (imported it into the queue's frontier)
 * @param overBudgetCount times an allocation found the quota taken by memory in use and had to
 *     wait for some to be returned (asynchronous devices; a woken allocation that still does not
 *     fit counts again) or failed (synchronous devices); a request above the whole quota fails
 *     without being counted here
 */
public record PoolStatistics(long bytesReserved, long bytesCommitted, long bytesPeak, long reservationCount,
        long freshCount, long waitsAvoided, long waitsInserted, long overBudgetCount) {

    /** Idle bytes: committed, free for reuse, returned to the system by {@link Pool#trim()}. */
    public long bytesIdle() {
        return bytesCommitted - bytesReserved;
    }
}
