package dev.ortho.hal;

/**
 * What a {@link Pool} can serve: IREE's {@code iree_hal_pool_capabilities_t} plus the pool's
 * quota. Fixed for the pool's life.
 *
 * @param memoryType {@link MemoryType} bits of the memory the pool hands out
 * @param supportedUsage {@link BufferUsage} bits its buffers may have
 * @param minAllocationSize smallest reservation in bytes (0: no lower bound)
 * @param maxAllocationSize largest single allocation in bytes; a queue alloca above it fails
 * @param minAlignment alignment every reservation has at least, in bytes
 * @param quotaBytes the most bytes committed at once ({@link PoolParams#UNLIMITED}: none)
 * @param frontierReuse whether freed memory is reused by death-frontier dominance (seed 002):
 *     an alloca whose queue frontier dominates the frontier at which the memory was freed
 *     reuses it with no synchronisation; false for a pool that reuses memory only once its users
 *     are known to be done (e.g. a synchronous device, where that is always the case)
 */
public record PoolCapabilities(int memoryType, int supportedUsage, long minAllocationSize, long maxAllocationSize,
        long minAlignment, long quotaBytes, boolean frontierReuse) {}
