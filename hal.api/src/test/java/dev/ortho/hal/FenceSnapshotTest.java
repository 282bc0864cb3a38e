package dev.ortho.hal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.hal.spi.TimelineSemaphore;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * A fence's timepoints are read by every queue operation it is passed to (waits and signals of
 * {@code hal.device.queue.*} on every call of an IREE-compiled program), so reading an unchanged
 * fence shares one snapshot instead of copying its arrays each time; any change that alters a
 * timepoint makes the next read see it.
 */
class FenceSnapshotTest {
    @Test
    void anUnchangedFenceReturnsTheSameSnapshot() {
        TimelineSemaphore s = new TimelineSemaphore("s", 0);
        Fence fence = Fence.at(s, 3);
        SemaphoreList first = fence.toSemaphoreList();
        assertSame(first, fence.toSemaphoreList());
        fence.insert(s, 2); // max-merge keeps 3: nothing changed
        assertSame(first, fence.toSemaphoreList());
        assertEquals(SemaphoreList.of(s, 3), first);
        fence.release();
        s.release();
    }

    @Test
    void insertionsAreSeenByTheNextRead() {
        TimelineSemaphore a = new TimelineSemaphore("a", 0);
        TimelineSemaphore b = new TimelineSemaphore("b", 0);
        Fence fence = Fence.at(a, 1);
        SemaphoreList before = fence.toSemaphoreList();
        fence.insert(a, 4);
        SemaphoreList raised = fence.toSemaphoreList();
        assertNotSame(before, raised);
        assertEquals(SemaphoreList.of(a, 1), before, "an earlier snapshot is immutable");
        assertEquals(SemaphoreList.of(a, 4), raised);
        fence.insert(b, 2);
        assertEquals(SemaphoreList.of(new Semaphore[] {a, b}, new long[] {4, 2}), fence.toSemaphoreList());
        fence.release();
        assertTrue(fence.toSemaphoreList().isEmpty(), "a released fence has no timepoints");
        a.release();
        b.release();
    }

    @Test
    void readingAnUnchangedFenceAllocatesNothing() {
        TimelineSemaphore s = new TimelineSemaphore("s", 0);
        Fence fence = Fence.at(s, 1);
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long best = Long.MAX_VALUE;
        int size = 0;
        for (int round = 0; round < 10; round++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 10_000; i++) {
                size += fence.toSemaphoreList().size();
            }
            best = Math.min(best, threads.getCurrentThreadAllocatedBytes() - before);
        }
        assertEquals(100_000, size);
        // each read copied two arrays and the list before (≈100 B per read, ≈1 MB per round)
        assertTrue(best < 10_000, "10,000 reads of an unchanged fence allocated " + best + " bytes");
        fence.release();
        s.release();
    }
}
