package dev.ortho.modules.hal.internal;

import dev.ortho.hal.Buffer;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Logical ownership counts of buffer allocations for {@code hal.buffer.allocation.preserve},
 * {@code .discard} and {@code .is_terminal} (IREE's {@code iree_hal_buffer_allocation_*}): each
 * root allocation starts with a count of one (its creator); preserve adds one, discard removes one
 * and reports whether it removed the last.
 *
 * <p>hal.api buffers carry no such count, so this module keeps it, keyed weakly by the root
 * allocation: owners that preserve through this module (every context of one module instance)
 * see each other; host code that never calls these functions is not counted. Thread-safe.
 */
final class AllocationPreserves {
    private final Map<Buffer, int[]> counts = new WeakHashMap<>();

    /** Adds an owner of {@code buffer}'s allocation. */
    synchronized void preserve(Buffer buffer) {
        counts.computeIfAbsent(buffer.allocatedBuffer(), k -> new int[] {1})[0]++;
    }

    /** Removes an owner; true if it was the last one, so the allocation may be deallocated. */
    synchronized boolean discard(Buffer buffer) {
        int[] count = counts.computeIfAbsent(buffer.allocatedBuffer(), k -> new int[] {1});
        return count[0]-- == 1;
    }

    /** True if exactly one owner preserves the allocation (it may be reused in place). */
    synchronized boolean isTerminal(Buffer buffer) {
        int[] count = counts.get(buffer.allocatedBuffer());
        return count == null || count[0] == 1;
    }
}
