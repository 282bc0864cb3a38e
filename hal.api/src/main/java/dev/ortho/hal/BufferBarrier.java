package dev.ortho.hal;

/**
 * A memory barrier restricted to one buffer range: IREE's {@code iree_hal_buffer_barrier_t}. As
 * in IREE a device may apply it to the whole allocation.
 *
 * @param sourceScope {@link AccessScope} bits of the accesses before the barrier
 * @param targetScope {@link AccessScope} bits of the accesses after the barrier
 * @param buffer the range the barrier covers (direct, or a binding-table slot)
 */
public record BufferBarrier(int sourceScope, int targetScope, BufferRef buffer) {}
