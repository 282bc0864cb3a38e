package dev.ortho.hal;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A pool of memory for stream-ordered allocation: IREE's {@code iree_hal_pool_t}, passed to
 * {@link Device#queueAlloca(long, SemaphoreList, SemaphoreList, Pool, BufferParams, long, long)}.
 * Queue alloca reserves memory from a pool, queue dealloca returns it with the deallocating
 * queue's death frontier, and a later alloca reuses it (seed 004). Each pool has its own quota,
 * statistics and free memory: allocations from one never take memory from another.
 *
 * <p>Lifetime: a pool from {@link Device#createPool} is owned by its creator (reference counted
 * like any {@link Resource}); queue allocas retain it until they retire, and memory still
 * allocated from it when its last reference goes is freed when that buffer's memory is
 * (dealloca or last release). The {@link Device#defaultPool() default pool} is borrowed from its
 * device and lives as long as the device; do not release it.
 *
 * <p>Thread-safe; shared by every queue of its device.
 */
@ProviderType
public interface Pool extends Resource {

    /** The device that created this pool (borrowed); allocas on other devices reject the pool. */
    Device device();

    /** What the pool serves; fixed, cheap. */
    PoolCapabilities capabilities();

    /** The pool's counters now. */
    PoolStatistics statistics();

    /**
     * Returns the pool's idle memory (freed and not reused) to the system; memory in use is
     * untouched. The pool stays usable and grows again on demand.
     *
     * @throws dev.ortho.base.StatusException FAILED_PRECONDITION if the pool was released
     */
    void trim();
}
