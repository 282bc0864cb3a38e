package dev.ortho.hal.cpu.internal.sync;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.Pool;
import dev.ortho.hal.PoolParams;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.internal.executable.TestLoaders;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * The garbage of a {@code local-sync} queue alloca + dealloca + release from a caching pool (the
 * op-zoo models' per-call transient, issue 16): the buffer object IREE makes too and its memory
 * slice, nothing else. Before (issue 16, {@code zoo5}) a cycle allocated 232 bytes: also the pool
 * check's message string (built on every call), an eviction list and a free-action lambda per
 * commit, a lambda per dealloca and an {@code AtomicBoolean} per buffer; 136 after. Measured with
 * the calling thread's allocation counter, best of several rounds after warm-up; the bound sits
 * between the two.
 */
class LocalSyncAllocaAllocationTest {
    private static final int CALLS = 50_000;

    @Test
    void aCachingPoolAllocaMakesNoListAndNoLambda() {
        try (LocalSyncDriver driver = new LocalSyncDriver(TestLoaders.standard());
                Device device = driver.createDevice(DeviceUri.parse("local-sync://"))) {
            Pool pool = device.createPool(PoolParams.deviceLocal(1 << 20));
            BufferParams params = BufferParams.deviceLocal();
            var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long best = Long.MAX_VALUE;
            for (int round = 0; round < 10; round++) {
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < CALLS; i++) {
                    Buffer buffer = device.queueAlloca(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(),
                            SemaphoreList.empty(), pool, params, 256, 0);
                    device.queueDealloca(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(), SemaphoreList.empty(),
                            buffer, 0);
                    buffer.release();
                }
                best = Math.min(best, (threads.getCurrentThreadAllocatedBytes() - before) / CALLS);
            }
            pool.release();
            assertTrue(best < 184, "a caching-pool alloca/dealloca/release allocates " + best
                    + " bytes per cycle (expected only the buffer and its slice)");
        }
    }

    /**
     * The device's default pool (what the {@code hal} module's {@code queue.alloca} uses, pool 0)
     * keeps nothing idle, so before (issue 16, branch {@code alloc}) every alloca also made a
     * buffer of its own for the block's memory, its count and free lambda, the block, a wrapping
     * lambda, a params record and a slice: 344 bytes per cycle. Now the memory is bound to the
     * transient directly under one lease object (the memory block caches its slice).
     */
    @Test
    void aDefaultPoolAllocaMakesOnlyTheBufferAndALease() {
        try (LocalSyncDriver driver = new LocalSyncDriver(TestLoaders.standard());
                Device device = driver.createDevice(DeviceUri.parse("local-sync://"))) {
            BufferParams params = BufferParams.deviceLocal();
            var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long best = Long.MAX_VALUE;
            for (int round = 0; round < 10; round++) {
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < CALLS; i++) {
                    Buffer buffer = device.queueAlloca(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(),
                            SemaphoreList.empty(), params, 448, 0);
                    device.queueDealloca(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(), SemaphoreList.empty(),
                            buffer, 0);
                    buffer.release();
                }
                best = Math.min(best, (threads.getCurrentThreadAllocatedBytes() - before) / CALLS);
            }
            assertTrue(best < BOUND_DEFAULT_POOL, "a default-pool alloca/dealloca/release allocates " + best
                    + " bytes per cycle (expected only the buffer and its lease)");
        }
    }

    private static final long BOUND_DEFAULT_POOL = 184;
}
