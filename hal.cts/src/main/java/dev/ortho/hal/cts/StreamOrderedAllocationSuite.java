package dev.ortho.hal.cts;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.Timeout;
import dev.ortho.hal.AllocatorStatistics;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Stream-ordered allocation (seed 004): queue alloca/dealloca reuse pooled memory in stream
 * order, across queues, and a pool quota smaller than two concurrent users' needs serialises
 * them instead of failing. Needs {@link #STREAM_ORDERED_REUSE}; the quota tests also need
 * {@link #createDeviceWithPoolQuota(long)}.
 */
@Tag(DeviceTestBase.STREAM_ORDERED_REUSE)
public abstract class StreamOrderedAllocationSuite extends DeviceTestBase {
    private static final SemaphoreList NONE = SemaphoreList.empty();

    /** A device like {@link #createDevice()} whose pool commits at most {@code bytes}; null if unsupported. */
    protected Device createDeviceWithPoolQuota(long bytes) {
        return null;
    }

    @Test
    @Tag(MULTI_QUEUE)
    void memoryDeallocatedOnOneQueueIsReusedByAnAllocaOrderedAfterItOnAnother() {
        require(STREAM_ORDERED_REUSE);
        require(MULTI_QUEUE);
        try (Semaphore s = device.createSemaphore(0)) {
            Buffer first = device.queueAlloca(1L, NONE, SemaphoreList.of(s, 1), BufferParams.deviceLocal(), 1 << 16, 0);
            device.queueFill(1L, SemaphoreList.of(s, 1), SemaphoreList.of(s, 2), first, 0, 1 << 16, 5, 1, 0);
            device.queueDealloca(1L, SemaphoreList.of(s, 2), SemaphoreList.of(s, 3), first, 0);
            s.await(3, Timeout.infinite());
            long allocated = device.allocator().statistics().bytesAllocated();
            Buffer second = device.queueAlloca(2L, SemaphoreList.of(s, 3), SemaphoreList.of(s, 4),
                    BufferParams.deviceLocal(), 1 << 16, 0);
            device.queueFill(2L, SemaphoreList.of(s, 4), SemaphoreList.of(s, 5), second, 0, 16, 9, 1, 0);
            s.await(5, Timeout.infinite());
            assertEquals(allocated, device.allocator().statistics().bytesAllocated(), "no new memory was allocated");
            assertEquals(0x09090909, readInts(second)[0]);
            assertStatus(StatusCode.FAILED_PRECONDITION, () -> readInts(first));
            device.queueDealloca(2L, SemaphoreList.of(s, 5), SemaphoreList.of(s, 6), second, 0);
            s.await(6, Timeout.infinite());
            first.release();
            second.release();
        }
    }

    @Test
    void aQuotaBelowTwoConcurrentInvocationsNeedsSerialisesThemInsteadOfFailing() {
        require(STREAM_ORDERED_REUSE);
        long quota = 1 << 20;
        long need = 768 * 1024; // two at once would need 1.5 MiB
        Device limited = createDeviceWithPoolQuota(quota);
        Assumptions.assumeTrue(limited != null, "device cannot be created with a pool quota");
        try (limited; Semaphore a = limited.createSemaphore(0); Semaphore b = limited.createSemaphore(0);
                Buffer outA = limited.allocator().allocateBuffer(BufferParams.hostLocal(), 16);
                Buffer outB = limited.allocator().allocateBuffer(BufferParams.hostLocal(), 16)) {
            // Two independent invocations, submitted before either starts, on different queues.
            invocation(limited, 1L, a, need, 0x11, outA);
            invocation(limited, 2L, b, need, 0x22, outB);
            a.signal(1);
            b.signal(1);
            a.await(5, Timeout.infinite());
            b.await(5, Timeout.infinite());
            assertArrayEquals(new int[] {0x11111111, 0x11111111, 0x11111111, 0x11111111}, readInts(outA));
            assertArrayEquals(new int[] {0x22222222, 0x22222222, 0x22222222, 0x22222222}, readInts(outB));
            AllocatorStatistics stats = limited.allocator().statistics();
            assertTrue(stats.bytesPeak() <= quota + 32, "peak " + stats.bytesPeak() + " stayed within the quota "
                    + quota + " (+32 bytes of outputs)");
        }
    }

    /** alloca → fill → copy out → dealloca, chained on {@code s} from 1 to 5. */
    private static void invocation(Device d, long queue, Semaphore s, long need, int value, Buffer out) {
        Buffer transientBuffer = d.queueAlloca(queue, SemaphoreList.of(s, 1), SemaphoreList.of(s, 2),
                BufferParams.deviceLocal(), need, 0);
        d.queueFill(queue, SemaphoreList.of(s, 2), SemaphoreList.of(s, 3), transientBuffer, 0, need, value, 1, 0);
        d.queueCopy(queue, SemaphoreList.of(s, 3), SemaphoreList.of(s, 4), transientBuffer, need - 16, out, 0, 16, 0);
        d.queueDealloca(queue, SemaphoreList.of(s, 4), SemaphoreList.of(s, 5), transientBuffer, 0);
        transientBuffer.release();
    }

    @Test
    void anAllocaLargerThanTheWholeQuotaFailsWithResourceExhausted() {
        require(STREAM_ORDERED_REUSE);
        Device limited = createDeviceWithPoolQuota(4096);
        Assumptions.assumeTrue(limited != null, "device cannot be created with a pool quota");
        try (limited; Semaphore s = limited.createSemaphore(0)) {
            Buffer buffer = limited.queueAlloca(Device.QUEUE_AFFINITY_ANY, NONE, SemaphoreList.of(s, 1),
                    BufferParams.deviceLocal(), 8192, 0);
            var e = assertStatus(StatusCode.RESOURCE_EXHAUSTED, () -> s.await(1, Timeout.infinite()));
            assertTrue(e.getMessage().contains("8192") && e.getMessage().contains("4096"), e.getMessage());
            buffer.release();
        }
    }
}
