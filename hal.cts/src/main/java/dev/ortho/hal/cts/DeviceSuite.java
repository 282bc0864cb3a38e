package dev.ortho.hal.cts;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandBufferMode;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceCapability;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.frontier.Axis;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.frontier.SemaphoreScope;
import org.junit.jupiter.api.Test;

/**
 * Device-level conformance: {@code queryI64} keys, capabilities, semaphore scopes, and the
 * queue-operation rules decided for Ortho (alloca after a failed wait, overlapping copies,
 * execute affinity).
 */
public abstract class DeviceSuite extends DeviceTestBase {
    private static final long ANY = Device.QUEUE_AFFINITY_ANY;
    private static final SemaphoreList NONE = SemaphoreList.empty();

    @Test
    void queryAnswersIreesCategoriesAndNotFoundOtherwise() {
        assertEquals(1, device.queryI64("hal.device.id", "*"));
        assertEquals(0, device.queryI64("hal.device.id", "no-such-device-*"));
        assertTrue(device.queryI64("hal.device", "concurrency") >= 1);
        assertTrue(device.queryI64("hal.dispatch", "concurrency") >= 1);
        assertEquals(0, device.queryI64("hal.executable.format", "no-such-format"));
        var e = assertStatus(StatusCode.NOT_FOUND, () -> device.queryI64("hal.device", "colour"));
        assertTrue(e.getMessage().contains("hal.device") && e.getMessage().contains("colour"), e.getMessage());
        assertStatus(StatusCode.NOT_FOUND, () -> device.queryI64("hal.nothing", "x"));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> device.queryI64(null, "id"));
    }

    @Test
    void capabilitiesUseOnlyDefinedBitsAndNameThemselves() {
        long bits = device.capabilities();
        assertEquals(0, bits & ~(DeviceCapability.IREE_MASK | DeviceCapability.ORTHO_MASK),
                () -> "undefined capability bits in " + DeviceCapability.format(bits));
        assertEquals(bits, DeviceCapability.parse(DeviceCapability.format(bits)));
        boolean multiQueue = device.queryI64("hal.device", "concurrency") > 1;
        assertEquals(multiQueue, DeviceCapability.has(bits, DeviceCapability.MULTI_QUEUE),
                "MULTI_QUEUE must agree with hal.device :: concurrency");
    }

    @Test
    void everyScopeMakesAWorkingSemaphoreThatKeepsItsScope() {
        for (SemaphoreScope scope : SemaphoreScope.values()) {
            try (Semaphore s = device.createSemaphore(3, scope)) {
                assertSame(scope, s.scope());
                assertEquals(3, s.query());
                device.queueBarrier(ANY, SemaphoreList.of(s, 3), SemaphoreList.of(s, 4), 0);
                s.await(4, Timeout.infinite());
                assertEquals(4, s.query());
            }
        }
        try (Semaphore s = device.createSemaphore(0)) {
            assertSame(SemaphoreScope.PROCESS, s.scope(), "the one-argument overload is process-scoped");
        }
    }

    @Test
    void deviceAndWiderScopesRecordFrontiersQueueLocalOnesClaimNoKnowledge() {
        long axis = Axis.queue(1, 0, 2, 3);
        Frontier signalled = new Frontier(4);
        signalled.insertOrRaise(axis, 7);
        for (SemaphoreScope scope : SemaphoreScope.values()) {
            try (Semaphore s = device.createSemaphore(0, scope)) {
                s.signal(1, signalled);
                Frontier imported = new Frontier(4);
                assertTrue(s.frontierAt(1, imported));
                if (scope == SemaphoreScope.QUEUE_LOCAL) {
                    assertTrue(imported.isEmpty() && imported.isTainted(), scope + ": " + imported);
                } else {
                    assertFalse(imported.isTainted(), scope + ": " + imported);
                    assertEquals(7, imported.epochOf(axis), scope + ": " + imported);
                }
            }
        }
    }

    @Test
    void aNullScopeOrAnOutOfRangeValueIsRefused() {
        var e = assertStatus(StatusCode.INVALID_ARGUMENT, () -> device.createSemaphore(0, null));
        assertTrue(e.getMessage().contains("scope"), e.getMessage());
        assertStatus(StatusCode.OUT_OF_RANGE, () -> device.createSemaphore(-1, SemaphoreScope.DEVICE));
        assertStatus(StatusCode.OUT_OF_RANGE, () -> device.createSemaphore(Semaphore.MAX_VALUE + 1));
    }

    @Test
    void allocaAfterAFailedWaitAllocatesNothingAndFailsTheSignals() {
        long before = device.allocator().statistics().bytesAllocated();
        long liveBefore = device.allocator().statistics().bytesLive();
        try (Semaphore wait = device.createSemaphore(0); Semaphore signal = device.createSemaphore(0)) {
            wait.fail(new StatusException(StatusCode.ABORTED, "producer gave up"));
            Buffer buffer = device.queueAlloca(ANY, SemaphoreList.of(wait, 1), SemaphoreList.of(signal, 1),
                    BufferParams.hostLocal(), 4096, 0);
            var e = assertStatus(StatusCode.ABORTED, () -> signal.await(1, Timeout.infinite()));
            assertTrue(e.getMessage().contains("producer gave up"), e.getMessage());
            assertEquals(4096, buffer.byteLength());
            assertStatus(StatusCode.FAILED_PRECONDITION, () -> buffer.read(0, i32(0)));
            buffer.release();
        }
        assertEquals(before, device.allocator().statistics().bytesAllocated());
        assertEquals(liveBefore, device.allocator().statistics().bytesLive());
    }

    @Test
    void allocaSignalsAfterItsWaitsAndDeallocaFreesTheMemory() {
        try (Semaphore s = device.createSemaphore(0)) {
            Buffer buffer = device.queueAlloca(ANY, NONE, SemaphoreList.of(s, 1), BufferParams.hostLocal(), 64, 0);
            s.await(1, Timeout.infinite());
            buffer.write(0, i32(9));
            device.queueDealloca(ANY, SemaphoreList.of(s, 1), SemaphoreList.of(s, 2), buffer, 0);
            s.await(2, Timeout.infinite());
            assertStatus(StatusCode.FAILED_PRECONDITION, () -> buffer.read(0, i32(0)));
            buffer.release();
        }
        if (!capabilities().contains(STREAM_ORDERED_REUSE)) { // a pool may keep dealloca'd memory for reuse
            assertEquals(0, device.allocator().statistics().bytesLive());
        }
    }

    @Test
    void queueCopyBetweenOverlappingRangesOfOneAllocationIsInvalidArgument() {
        try (Buffer a = ints(1, 2, 3, 4, 5, 6, 7, 8); Buffer tail = a.subspan(8, 24);
                Semaphore s = device.createSemaphore(0)) {
            var e = assertStatus(StatusCode.INVALID_ARGUMENT,
                    () -> device.queueCopy(ANY, NONE, SemaphoreList.of(s, 1), a, 0, a, 4, 16, 0));
            assertTrue(e.getMessage().contains("[0, 16)") && e.getMessage().contains("[4, 20)"), e.getMessage());
            assertStatus(StatusCode.INVALID_ARGUMENT,
                    () -> device.queueCopy(ANY, NONE, SemaphoreList.of(s, 1), a, 0, tail, 0, 16, 0));
            assertEquals(0, s.query(), "a refused call signals nothing");
            device.queueCopy(ANY, NONE, SemaphoreList.of(s, 1), a, 0, tail, 8, 8, 0); // disjoint: [0,8) -> [16,24)
            s.await(1, Timeout.infinite());
            assertArrayEquals(new int[] {1, 2, 3, 4, 1, 2, 7, 8}, readInts(a));
        }
    }

    @Test
    void recordedCopyBetweenOverlappingRangesIsInvalidArgument() {
        try (Buffer a = allocate(64); CommandBuffer cb = device.createCommandBuffer(CommandBufferMode.ONE_SHOT,
                CommandCategory.TRANSFER, ANY, 0)) {
            cb.begin();
            assertStatus(StatusCode.INVALID_ARGUMENT,
                    () -> cb.copyBuffer(BufferRef.of(a, 0, 32), BufferRef.of(a, 16, 32), 0));
            cb.copyBuffer(BufferRef.of(a, 0, 32), BufferRef.of(a, 32, 32), 0);
            cb.end();
        }
    }

    @Test
    void executeOnAnAffinitySelectingNoQueueIsInvalidArgument() {
        long queues = device.queryI64("hal.device", "concurrency");
        long missing = queues >= 63 ? 0 : 1L << queues;
        org.junit.jupiter.api.Assumptions.assumeTrue(missing != 0, "device has 63 or more queues");
        try (CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.TRANSFER, ANY, 0)) {
            cb.begin();
            cb.end();
            var e = assertStatus(StatusCode.INVALID_ARGUMENT,
                    () -> device.queueExecute(missing, NONE, NONE, cb, null, 0));
            assertTrue(e.getMessage().contains(Long.toHexString(missing)), e.getMessage());
        }
    }

    @Test
    void flushAcceptsEveryQueueAndRefusesAffinitiesSelectingNone() {
        device.queueFlush(ANY);
        device.queueFlush(0);
        device.queueFlush(1);
        long queues = device.queryI64("hal.device", "concurrency");
        org.junit.jupiter.api.Assumptions.assumeTrue(queues < 63, "device has 63 or more queues");
        long missing = 1L << queues;
        var e = assertStatus(StatusCode.INVALID_ARGUMENT, () -> device.queueFlush(missing));
        assertTrue(e.getMessage().contains(Long.toHexString(missing)), e.getMessage());
    }
}
