package dev.ortho.hal.cts;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.Timeout;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandBufferMode;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Device;
import dev.ortho.hal.Event;
import dev.ortho.hal.ExecutionStage;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import org.junit.jupiter.api.Test;

/** Command buffer conformance: recording rules, transfer results, binding tables, re-submission. */
public abstract class CommandBufferSuite extends DeviceTestBase {
    private static final SemaphoreList NONE = SemaphoreList.empty();

    private CommandBuffer create(int mode, int categories, int capacity) {
        return device.createCommandBuffer(mode, categories, Device.QUEUE_AFFINITY_ANY, capacity);
    }

    private void execute(CommandBuffer commandBuffer, BindingTable table) {
        try (Semaphore done = device.createSemaphore(0)) {
            device.queueExecute(Device.QUEUE_AFFINITY_ANY, NONE, SemaphoreList.of(done, 1), commandBuffer, table, 0);
            done.await(1, Timeout.infinite());
        }
    }

    @Test
    void recordingBeforeBeginOrAfterEndIsFailedPrecondition() {
        try (CommandBuffer cb = create(0, CommandCategory.ANY, 0); Buffer a = allocate(4)) {
            assertStatus(StatusCode.FAILED_PRECONDITION, () -> cb.fillBuffer(BufferRef.of(a), 0, 1, 0));
            cb.begin();
            assertStatus(StatusCode.FAILED_PRECONDITION, cb::begin);
            cb.end();
            assertStatus(StatusCode.FAILED_PRECONDITION, cb::end);
            assertStatus(StatusCode.FAILED_PRECONDITION, () -> cb.fillBuffer(BufferRef.of(a), 0, 1, 0));
        }
    }

    @Test
    void submittingAnUnfinishedCommandBufferIsRefused() {
        try (CommandBuffer cb = create(0, CommandCategory.ANY, 0)) {
            cb.begin();
            StatusCode code = assertThrowsStatus(() -> device.queueExecute(Device.QUEUE_AFFINITY_ANY, NONE, NONE, cb,
                    BindingTable.empty(), 0));
            assertTrue(code == StatusCode.FAILED_PRECONDITION || code == StatusCode.INVALID_ARGUMENT, code.toString());
        }
    }

    @Test
    void debugGroupsMustBalance() {
        try (CommandBuffer cb = create(0, CommandCategory.ANY, 0)) {
            cb.begin();
            assertStatus(StatusCode.FAILED_PRECONDITION, cb::endDebugGroup);
            cb.beginDebugGroup("outer");
            assertStatus(StatusCode.FAILED_PRECONDITION, cb::end);
            cb.endDebugGroup();
            cb.end();
        }
    }

    @Test
    void commandsOutsideTheAllowedCategoriesAreRefused() {
        try (CommandBuffer cb = create(0, CommandCategory.DISPATCH, 0); Buffer a = allocate(4)) {
            cb.begin();
            assertThrowsStatus(() -> cb.fillBuffer(BufferRef.of(a), 0, 1, 0));
        }
    }

    @Test
    void transfersExecuteInRecordedOrderAcrossBarriersAndEvents() {
        try (CommandBuffer cb = create(0, CommandCategory.ANY, 0); Buffer a = allocate(16); Buffer b = allocate(16);
                Event event = device.createEvent()) {
            cb.begin();
            cb.fillBuffer(BufferRef.of(a), 0x22, 1, 0);
            cb.updateBuffer(i32(1, 2), BufferRef.of(a, 8, 8), 0);
            cb.signalEvent(event, ExecutionStage.TRANSFER);
            cb.waitEvents(new Event[] {event}, ExecutionStage.TRANSFER, ExecutionStage.TRANSFER);
            cb.executionBarrier(ExecutionStage.TRANSFER, ExecutionStage.TRANSFER, 0);
            cb.copyBuffer(BufferRef.of(a), BufferRef.of(b), 0);
            cb.resetEvent(event, ExecutionStage.TRANSFER);
            cb.end();
            execute(cb, BindingTable.empty());
            assertArrayEquals(new int[] {0x22222222, 0x22222222, 1, 2}, readInts(b));
        }
    }

    @Test
    void updatesLargerThan64KiBAreRefused() {
        try (CommandBuffer cb = create(0, CommandCategory.ANY, 0); Buffer a = allocate(70_000)) {
            cb.begin();
            assertThrowsStatus(() -> cb.updateBuffer(java.lang.foreign.MemorySegment.ofArray(new byte[65_537]),
                    BufferRef.of(a), 0));
        }
    }

    @Test
    void indirectReferencesResolveThroughTheBindingTableOfEachSubmission() {
        try (CommandBuffer cb = create(0, CommandCategory.TRANSFER, 2); Buffer a = allocate(8); Buffer b = allocate(8)) {
            cb.begin();
            cb.fillBuffer(BufferRef.slot(1, 4, 4), 9, 4, 0);
            cb.end();
            execute(cb, BindingTable.of(a, b));
            execute(cb, BindingTable.of(new Buffer[] {b, a}, new long[] {0, 0}, new long[] {8, 8}));
            assertArrayEquals(new int[] {0, 9}, readInts(a));
            assertArrayEquals(new int[] {0, 9}, readInts(b));
        }
    }

    @Test
    void aBindingTableSmallerThanTheCommandBufferNeedsIsOutOfRange() {
        try (CommandBuffer cb = create(0, CommandCategory.TRANSFER, 4); Buffer a = allocate(8)) {
            cb.begin();
            cb.fillBuffer(BufferRef.slot(2, 0, 4), 9, 4, 0);
            cb.end();
            var e = assertStatus(StatusCode.OUT_OF_RANGE, () -> device.queueExecute(Device.QUEUE_AFFINITY_ANY, NONE,
                    NONE, cb, BindingTable.of(a), 0));
            assertTrue(e.getMessage().contains("2"), e.getMessage());
        }
    }

    @Test
    void slotsBeyondTheBindingCapacityAreOutOfRangeWhenRecorded() {
        try (CommandBuffer cb = create(0, CommandCategory.TRANSFER, 1)) {
            cb.begin();
            assertStatus(StatusCode.OUT_OF_RANGE, () -> cb.fillBuffer(BufferRef.slot(1, 0, 4), 0, 4, 0));
        }
    }

    @Test
    void oneShotCommandBuffersRunOnceAndReusableOnesAgain() {
        try (CommandBuffer once = create(CommandBufferMode.ONE_SHOT, CommandCategory.TRANSFER, 0);
                CommandBuffer again = create(0, CommandCategory.TRANSFER, 0); Buffer a = allocate(4)) {
            once.begin();
            once.fillBuffer(BufferRef.of(a), 1, 1, 0);
            once.end();
            execute(once, BindingTable.empty());
            assertStatus(StatusCode.FAILED_PRECONDITION, () -> device.queueExecute(Device.QUEUE_AFFINITY_ANY, NONE,
                    NONE, once, BindingTable.empty(), 0));
            again.begin();
            again.updateBuffer(i32(3), BufferRef.of(a), 0);
            again.end();
            execute(again, BindingTable.empty());
            a.fill(0, 4, 0, 4);
            execute(again, BindingTable.empty());
            assertArrayEquals(new int[] {3}, readInts(a));
        }
    }

    @Test
    void commandBuffersKeepDirectlyReferencedBuffersAlive() {
        Buffer a = allocate(4);
        try (CommandBuffer cb = create(0, CommandCategory.TRANSFER, 0); Buffer out = allocate(4)) {
            cb.begin();
            cb.fillBuffer(BufferRef.of(a), 4, 4, 0);
            // without a barrier the copy may run concurrently with the fill (HAL semantics)
            cb.executionBarrier(ExecutionStage.TRANSFER, ExecutionStage.TRANSFER, 0);
            cb.copyBuffer(BufferRef.of(a), BufferRef.of(out), 0);
            cb.end();
            a.release();
            execute(cb, BindingTable.empty());
            assertEquals(4, readInts(out)[0]);
        }
    }

    private static StatusCode assertThrowsStatus(org.junit.jupiter.api.function.Executable call) {
        return org.junit.jupiter.api.Assertions.assertThrows(dev.ortho.base.StatusException.class, call).code();
    }
}
