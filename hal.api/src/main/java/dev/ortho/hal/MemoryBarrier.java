package dev.ortho.hal;

/**
 * A global memory barrier of an execution barrier or event wait: IREE's
 * {@code iree_hal_memory_barrier_t}. Writes in {@code sourceScope} before the barrier are visible
 * to accesses in {@code targetScope} after it.
 *
 * @param sourceScope {@link AccessScope} bits of the accesses before the barrier
 * @param targetScope {@link AccessScope} bits of the accesses after the barrier
 */
public record MemoryBarrier(int sourceScope, int targetScope) {}
