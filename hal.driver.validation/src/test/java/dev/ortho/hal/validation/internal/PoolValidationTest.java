package dev.ortho.hal.validation.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.Timeout;
import dev.ortho.hal.AllocaFlags;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Pool;
import dev.ortho.hal.PoolParams;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import org.junit.jupiter.api.Test;

/** Pool checks of the wrapper: creation arguments, the pool an alloca names, its size and flags. */
class PoolValidationTest extends ValidationTestBase {
    private static final SemaphoreList NONE = SemaphoreList.empty();

    @Test
    void poolsAreHandedOutAsValidatingProxiesOwnedByTheWrapper() {
        try (Pool pool = device.createPool(PoolParams.deviceLocal(4096))) {
            assertTrue(pool instanceof ValidatingPool, pool.getClass().toString());
            assertSame(device, pool.device());
            assertSame(device.defaultPool(), device.defaultPool());
            assertSame(device, device.defaultPool().device());
        }
    }

    @Test
    void createPoolNeedsParamsAndAPositiveQuota() {
        rejected(StatusCode.INVALID_ARGUMENT, () -> device.createPool(null), "device.createPool", "params");
        rejected(StatusCode.INVALID_ARGUMENT, () -> device.createPool(new PoolParams(null, 64)), "params.bufferParams");
        rejected(StatusCode.INVALID_ARGUMENT, () -> device.createPool(PoolParams.deviceLocal(-5)), "quotaBytes", "-5");
    }

    @Test
    void anAllocaFromAPoolOfAnotherDeviceIsRejectedNamingBoth() {
        ValidatingDevice other = new ValidatingDevice(localSync());
        try (other; Pool foreign = other.createPool(PoolParams.deviceLocal(4096));
                Pool raw = localSync().createPool(PoolParams.deviceLocal(4096))) {
            rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueAlloca(-1, NONE, NONE, foreign,
                    BufferParams.deviceLocal(), 64, 0), "device.queueAlloca", "pool", other.toString(),
                    device.toString());
            rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueAlloca(-1, NONE, NONE, raw,
                    BufferParams.deviceLocal(), 64, 0), "device.queueAlloca", "pool");
            raw.device().release();
        }
    }

    @Test
    void aReleasedPoolIsUsedAfterItsLastRelease() {
        Pool pool = device.createPool(PoolParams.deviceLocal(4096));
        pool.release();
        rejected(StatusCode.FAILED_PRECONDITION, () -> device.queueAlloca(-1, NONE, NONE, pool,
                BufferParams.deviceLocal(), 64, 0), "device.queueAlloca pool", "after its last release");
        rejected(StatusCode.FAILED_PRECONDITION, pool::trim, "pool.trim");
        rejected(StatusCode.FAILED_PRECONDITION, pool::release, "pool.release");
    }

    @Test
    void aSizeAboveThePoolMaximumIsResourceExhaustedAtTheCall() {
        try (Pool pool = device.createPool(PoolParams.deviceLocal(4096))) {
            rejected(StatusCode.RESOURCE_EXHAUSTED, () -> device.queueAlloca(-1, NONE, NONE, pool,
                    BufferParams.deviceLocal(), 4097, 0), "device.queueAlloca size", "4097", "4096");
        }
    }

    @Test
    void unknownAllocaFlagsAreInvalid() {
        try (Pool pool = device.createPool(PoolParams.deviceLocal(4096))) {
            rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueAlloca(-1, NONE, NONE, pool,
                    BufferParams.deviceLocal(), 64, 1L << 7), "device.queueAlloca flags", "80h");
        }
    }

    @Test
    void aBufferAllocatedFromAPoolIsDeallocatedOnceThroughTheWrapper() {
        try (Pool pool = device.createPool(PoolParams.deviceLocal(4096)); Semaphore s = device.createSemaphore(0)) {
            Buffer buffer = device.queueAlloca(-1, NONE, SemaphoreList.of(s, 1), pool, BufferParams.deviceLocal(),
                    1024, AllocaFlags.ALLOW_POOL_WAIT_FRONTIER);
            device.queueDealloca(-1, SemaphoreList.of(s, 1), SemaphoreList.of(s, 2), buffer, 0);
            s.await(2, Timeout.infinite());
            assertEquals(1, pool.statistics().reservationCount());
            assertEquals(0, pool.statistics().bytesReserved());
            rejected(StatusCode.FAILED_PRECONDITION, () -> device.queueDealloca(-1, SemaphoreList.of(s, 2),
                    SemaphoreList.of(s, 3), buffer, 0), "double dealloca");
            buffer.release();
        }
    }
}
