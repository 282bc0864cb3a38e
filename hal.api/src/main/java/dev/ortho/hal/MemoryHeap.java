package dev.ortho.hal;

/**
 * One kind of memory an {@link Allocator} can allocate from: IREE's
 * {@code iree_hal_allocator_memory_heap_t}.
 *
 * @param type {@link MemoryType} bits of allocations from this heap
 * @param allowedUsage {@link BufferUsage} bits buffers from this heap may have
 * @param maxAllocationSize the largest single allocation in bytes
 * @param minAlignment the alignment every allocation has at least
 */
public record MemoryHeap(int type, int allowedUsage, long maxAllocationSize, long minAlignment) {}
