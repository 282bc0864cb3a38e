package dev.ortho.hal.cts;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.AllocaFlags;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.Pool;
import dev.ortho.hal.PoolCapabilities;
import dev.ortho.hal.PoolParams;
import dev.ortho.hal.PoolStatistics;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Memory pools ({@link Device#createPool}, {@link Device#defaultPool}) and queue alloca from a
 * given pool (IREE's {@code queue_alloca} pool argument): each pool has its own quota, free memory
 * and real statistics; trim returns idle memory; a pool of another device is rejected. A device
 * without pools (UNIMPLEMENTED) skips the suite visibly. Operations run on queue 0 so results do
 * not depend on the queue count.
 */
public abstract class PoolSuite extends DeviceTestBase {
    private static final SemaphoreList NONE = SemaphoreList.empty();
    private static final long Q = Device.QUEUE_AFFINITY_ANY;

    /** A pool of the device under test, or a visible skip if the device has none. */
    private Pool createPool(long quota) {
        try {
            return device.createPool(PoolParams.deviceLocal(quota));
        } catch (StatusException e) {
            Assumptions.assumeTrue(e.code() != StatusCode.UNIMPLEMENTED, () -> "device " + device.info().name()
                    + " has no memory pools: " + e.getMessage());
            throw e;
        }
    }

    private Buffer alloca(Pool pool, Semaphore s, long wait, long signal, long size, long flags) {
        return device.queueAlloca(Q, wait == 0 ? NONE : SemaphoreList.of(s, wait), SemaphoreList.of(s, signal), pool,
                BufferParams.deviceLocal(), size, flags);
    }

    private void dealloca(Buffer buffer, Semaphore s, long wait, long signal) {
        device.queueDealloca(Q, SemaphoreList.of(s, wait), SemaphoreList.of(s, signal), buffer, 0);
    }

    @Test
    void aCreatedPoolReportsItsQuotaCapabilitiesAndEmptyStatistics() {
        try (Pool pool = createPool(1 << 20)) {
            assertSame(device, pool.device());
            PoolCapabilities caps = pool.capabilities();
            assertEquals(1 << 20, caps.quotaBytes());
            assertTrue(caps.maxAllocationSize() > 0 && caps.maxAllocationSize() <= 1 << 20, caps.toString());
            assertTrue(caps.minAlignment() >= 64 && Long.bitCount(caps.minAlignment()) == 1, caps.toString());
            assertEquals(new PoolStatistics(0, 0, 0, 0, 0, 0, 0, 0), pool.statistics());
            assertSame(device.defaultPool(), device.defaultPool(), "one default pool");
            assertSame(device, device.defaultPool().device());
        }
    }

    @Test
    void createPoolRejectsMissingParamsAndANonPositiveQuota() {
        createPool(4096).release(); // skips on a device without pools
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> device.createPool(null));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> device.createPool(new PoolParams(null, 4096)));
        StatusException e = assertStatus(StatusCode.INVALID_ARGUMENT, () -> device.createPool(PoolParams.deviceLocal(0)));
        assertTrue(e.getMessage().contains("0"), e.getMessage());
    }

    @Test
    void anAllocaFromAGivenPoolIsServedAndCountedByThatPoolOnly() {
        try (Pool pool = createPool(1 << 20); Semaphore s = device.createSemaphore(0);
                Buffer out = allocate(16)) {
            long defaultReservations = device.defaultPool().statistics().reservationCount();
            Buffer buffer = alloca(pool, s, 0, 1, 4096, 0);
            device.queueFill(Q, SemaphoreList.of(s, 1), SemaphoreList.of(s, 2), buffer, 0, 4096, 0x5A, 1, 0);
            device.queueCopy(Q, SemaphoreList.of(s, 2), SemaphoreList.of(s, 3), buffer, 4080, out, 0, 16, 0);
            s.await(3, Timeout.infinite());
            assertArrayEquals(new int[] {0x5A5A5A5A, 0x5A5A5A5A, 0x5A5A5A5A, 0x5A5A5A5A}, readInts(out));
            PoolStatistics live = pool.statistics();
            assertEquals(1, live.reservationCount(), live.toString());
            assertEquals(1, live.freshCount(), live.toString());
            assertTrue(live.bytesReserved() >= 4096 && live.bytesCommitted() >= live.bytesReserved(), live.toString());
            assertTrue(live.bytesPeak() >= live.bytesCommitted(), live.toString());
            assertEquals(defaultReservations, device.defaultPool().statistics().reservationCount(),
                    "the default pool served nothing");
            dealloca(buffer, s, 3, 4);
            s.await(4, Timeout.infinite());
            assertEquals(0, pool.statistics().bytesReserved(), pool.statistics().toString());
            buffer.release();
        }
    }

    @Test
    void aNullPoolIsTheDefaultPool() {
        try (Semaphore s = device.createSemaphore(0)) {
            createPool(4096).release(); // skips on a device without pools
            long before = device.defaultPool().statistics().reservationCount();
            Buffer buffer = alloca(null, s, 0, 1, 256, 0);
            s.await(1, Timeout.infinite());
            assertEquals(before + 1, device.defaultPool().statistics().reservationCount());
            dealloca(buffer, s, 1, 2);
            s.await(2, Timeout.infinite());
            buffer.release();
        }
    }

    @Test
    void memoryGivenBackToAPoolIsReusedWithoutNewMemoryOrWaits() {
        try (Pool pool = createPool(1 << 20); Semaphore s = device.createSemaphore(0)) {
            Buffer first = alloca(pool, s, 0, 1, 8192, 0);
            dealloca(first, s, 1, 2);
            s.await(2, Timeout.infinite());
            long allocated = device.allocator().statistics().bytesAllocated();
            Buffer second = alloca(pool, s, 2, 3, 8192, 0); // ordered after the dealloca
            s.await(3, Timeout.infinite());
            assertEquals(allocated, device.allocator().statistics().bytesAllocated(), "no new memory");
            PoolStatistics stats = pool.statistics();
            assertEquals(2, stats.reservationCount(), stats.toString());
            assertEquals(1, stats.freshCount(), stats.toString());
            assertEquals(1, stats.waitsAvoided(), "the reuse was ordered after the dealloca: " + stats);
            assertEquals(8192, stats.bytesPeak(), stats.toString());
            dealloca(second, s, 3, 4);
            s.await(4, Timeout.infinite());
            first.release();
            second.release();
        }
    }

    @Test
    void trimReturnsIdleMemoryAndKeepsMemoryInUse() {
        try (Pool pool = createPool(1 << 20); Semaphore s = device.createSemaphore(0)) {
            Buffer kept = alloca(pool, s, 0, 1, 4096, 0);
            Buffer idle = alloca(pool, s, 1, 2, 16384, 0);
            dealloca(idle, s, 2, 3);
            s.await(3, Timeout.infinite());
            long liveBefore = device.allocator().statistics().bytesLive();
            pool.trim();
            PoolStatistics stats = pool.statistics();
            assertEquals(4096, stats.bytesReserved(), stats.toString());
            assertEquals(4096, stats.bytesCommitted(), "idle memory went back: " + stats);
            assertTrue(device.allocator().statistics().bytesLive() <= liveBefore, "nothing new is live");
            assertEquals(0x01010101, fillAndRead(kept, s, 3), "memory in use is untouched");
            dealloca(kept, s, 5, 6);
            s.await(6, Timeout.infinite());
            pool.trim();
            assertEquals(0, pool.statistics().bytesCommitted(), pool.statistics().toString());
            kept.release();
            idle.release();
        }
    }

    /** Fills the buffer with 1s after {@code s >= wait}, copies 4 bytes out, returns them; s reaches wait + 2. */
    private int fillAndRead(Buffer buffer, Semaphore s, long wait) {
        try (Buffer out = allocate(4)) {
            device.queueFill(Q, SemaphoreList.of(s, wait), SemaphoreList.of(s, wait + 1), buffer, 0, 64, 1, 1, 0);
            device.queueCopy(Q, SemaphoreList.of(s, wait + 1), SemaphoreList.of(s, wait + 2), buffer, 0, out, 0, 4, 0);
            s.await(wait + 2, Timeout.infinite());
            return readInts(out)[0];
        }
    }

    @Test
    void twoPoolsAreIsolated() {
        try (Pool a = createPool(8192); Pool b = createPool(8192); Semaphore s = device.createSemaphore(0)) {
            Buffer fromA = alloca(a, s, 0, 1, 8192, 0);
            dealloca(fromA, s, 1, 2);
            s.await(2, Timeout.infinite());
            Buffer fromB = alloca(b, s, 2, 3, 8192, 0);
            s.await(3, Timeout.infinite());
            assertEquals(1, b.statistics().freshCount(), "b did not take a's idle memory: " + b.statistics());
            PoolStatistics statsA = a.statistics();
            assertEquals(1, statsA.reservationCount(), statsA.toString());
            assertEquals(0, statsA.bytesReserved(), statsA.toString());
            assertEquals(8192, b.statistics().bytesReserved(), b.statistics().toString());
            assertTrue(statsA.bytesCommitted() + b.statistics().bytesCommitted() <= 16384, "each within its own quota");
            dealloca(fromB, s, 3, 4);
            s.await(4, Timeout.infinite());
            fromA.release();
            fromB.release();
        }
    }

    @Test
    void aPoolOfAnotherDeviceIsRejected() {
        Device other = createDevice();
        try (other; Pool foreign = other.createPool(PoolParams.deviceLocal(4096));
                Semaphore s = device.createSemaphore(0)) {
            createPool(4096).release(); // skips on a device without pools
            StatusException e = assertStatus(StatusCode.INVALID_ARGUMENT, () -> device.queueAlloca(Q, NONE,
                    SemaphoreList.of(s, 1), foreign, BufferParams.deviceLocal(), 64, 0));
            assertTrue(e.getMessage().contains("pool"), e.getMessage());
            assertEquals(0, s.query(), "nothing was submitted");
        } catch (StatusException e) {
            Assumptions.assumeTrue(e.code() != StatusCode.UNIMPLEMENTED, e.getMessage());
            throw e;
        }
    }

    @Test
    void aReleasedPoolIsRefused() {
        Pool pool = createPool(4096);
        pool.release();
        try (Semaphore s = device.createSemaphore(0)) {
            assertStatus(StatusCode.FAILED_PRECONDITION, () -> device.queueAlloca(Q, NONE, SemaphoreList.of(s, 1),
                    pool, BufferParams.deviceLocal(), 64, 0));
            assertStatus(StatusCode.FAILED_PRECONDITION, pool::trim);
        }
    }

    @Test
    void anAllocaBeyondThePoolsMaximumFailsWithResourceExhausted() {
        try (Pool pool = createPool(4096); Semaphore s = device.createSemaphore(0)) {
            long size = pool.capabilities().maxAllocationSize() + 1;
            Buffer buffer;
            try {
                buffer = alloca(pool, s, 0, 1, size, 0);
            } catch (StatusException e) { // refused at the call (validation)
                assertEquals(StatusCode.RESOURCE_EXHAUSTED, e.code(), e.getMessage());
                assertTrue(e.getMessage().contains(Long.toString(size)), e.getMessage());
                return;
            }
            StatusException e = assertStatus(StatusCode.RESOURCE_EXHAUSTED, () -> s.await(1, Timeout.infinite()));
            assertTrue(e.getMessage().contains(Long.toString(size)) && e.getMessage().contains("4096"), e.getMessage());
            buffer.release();
        }
    }

    @Test
    void deallocaOfAnIndeterminateLifetimeBufferWaitsForItsLastRelease() {
        try (Pool pool = createPool(1 << 20); Semaphore s = device.createSemaphore(0)) {
            Buffer buffer = alloca(pool, s, 0, 1, 4096, AllocaFlags.INDETERMINATE_LIFETIME);
            dealloca(buffer, s, 1, 2);
            s.await(2, Timeout.infinite());
            assertEquals(4096, pool.statistics().bytesReserved(), "dealloca was ignored: " + pool.statistics());
            assertEquals(0x01010101, fillAndRead(buffer, s, 2), "and the buffer is still usable");
            buffer.release(); // the queue drops its own references as its operations retire, after signalling
            long guard = System.nanoTime() + 60_000_000_000L; // hang guard only
            while (pool.statistics().bytesReserved() != 0) {
                assertTrue(System.nanoTime() < guard, "the last release never gave it back: " + pool.statistics());
                Thread.onSpinWait();
            }
        }
    }

    @Test
    void aQuotaOnlyOneUserFitsFailsTheSecondOnASynchronousDevice() {
        Assumptions.assumeFalse(capabilities().contains(ASYNC_QUEUE), "asynchronous devices wait for memory instead");
        try (Pool pool = createPool(65536); Semaphore s = device.createSemaphore(0)) {
            Buffer first = alloca(pool, s, 0, 1, 49152, 0);
            Buffer second = alloca(pool, s, 1, 2, 49152, 0);
            StatusException e = assertStatus(StatusCode.RESOURCE_EXHAUSTED, () -> s.await(2, Timeout.infinite()));
            assertTrue(e.getMessage().contains("49152") && e.getMessage().contains("65536"), e.getMessage());
            assertEquals(1, pool.statistics().overBudgetCount(), pool.statistics().toString());
            first.release();
            second.release();
        }
    }

    @Test
    @Tag(ASYNC_QUEUE)
    void aQuotaSmallerThanTwoConcurrentUsersSerialisesThemOnAnAsynchronousDevice() {
        require(ASYNC_QUEUE);
        long quota = 1 << 20;
        long need = 768 * 1024; // two at once would need 1.5 MiB
        try (Pool pool = createPool(quota); Semaphore start = device.createSemaphore(0);
                Semaphore gate = device.createSemaphore(0); Semaphore a = device.createSemaphore(0);
                Semaphore b = device.createSemaphore(0); Buffer outA = allocate(16); Buffer outB = allocate(16)) {
            // A runs first and keeps its memory until the gate opens; B, submitted meanwhile, must wait.
            invocation(pool, start, SemaphoreList.of(new Semaphore[] {a, gate}, new long[] {3, 1}), a, need, 0x11,
                    outA);
            start.signal(1);
            a.await(3, Timeout.infinite()); // A holds its memory
            invocation(pool, start, SemaphoreList.of(b, 3), b, need, 0x22, outB);
            long guard = System.nanoTime() + 60_000_000_000L; // hang guard only
            while (pool.statistics().overBudgetCount() == 0) { // until B's alloca has run and waits for memory
                assertTrue(System.nanoTime() < guard, "the second alloca never waited: " + pool.statistics());
                Thread.onSpinWait();
            }
            assertEquals(0, b.query(), "B cannot start while A holds the memory");
            gate.signal(1);
            a.await(4, Timeout.infinite());
            b.await(4, Timeout.infinite());
            assertArrayEquals(new int[] {0x11111111, 0x11111111, 0x11111111, 0x11111111}, readInts(outA));
            assertArrayEquals(new int[] {0x22222222, 0x22222222, 0x22222222, 0x22222222}, readInts(outB));
            PoolStatistics stats = pool.statistics();
            assertTrue(stats.bytesPeak() <= quota, "peak within the quota: " + stats);
            assertEquals(2, stats.reservationCount(), stats.toString());
            assertEquals(1, stats.overBudgetCount(), "one user waited for the other's memory: " + stats);
        }
    }

    /** alloca (after start@1) → fill → copy out → dealloca (after {@code deallocaWaits}), signalling {@code s} 1..4. */
    private void invocation(Pool pool, Semaphore start, SemaphoreList deallocaWaits, Semaphore s, long need, int value,
            Buffer out) {
        Buffer transientBuffer = device.queueAlloca(Q, SemaphoreList.of(start, 1), SemaphoreList.of(s, 1), pool,
                BufferParams.deviceLocal(), need, 0);
        device.queueFill(Q, SemaphoreList.of(s, 1), SemaphoreList.of(s, 2), transientBuffer, 0, need, value, 1, 0);
        device.queueCopy(Q, SemaphoreList.of(s, 2), SemaphoreList.of(s, 3), transientBuffer, need - 16, out, 0, 16, 0);
        device.queueDealloca(Q, deallocaWaits, SemaphoreList.of(s, 4), transientBuffer, 0);
        transientBuffer.release();
    }
}
