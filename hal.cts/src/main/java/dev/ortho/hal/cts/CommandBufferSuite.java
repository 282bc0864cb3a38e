package dev.ortho.hal.cts;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.Timeout;
import dev.ortho.hal.AccessScope;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferBarrier;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandBufferMode;
import dev.ortho.hal.ChannelParams;
import dev.ortho.hal.CollectiveOp;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.DeviceCapability;
import dev.ortho.hal.Device;
import dev.ortho.hal.Event;
import dev.ortho.hal.ExecutionStage;
import dev.ortho.hal.MemoryBarrier;
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
            // The fill and the update overlap: without a barrier they share a region, and a
            // region's commands may run concurrently (IREE's block ISA: all work in a region
            // is tiled across workers), so the update's order is only guaranteed by a barrier.
            cb.executionBarrier(ExecutionStage.TRANSFER, ExecutionStage.TRANSFER, 0);
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

    @Test
    void fineGrainedBarriersOrderTransfersLikeFullOnes() {
        try (CommandBuffer cb = create(0, CommandCategory.TRANSFER, 0); Buffer a = allocate(16); Buffer b = allocate(16)) {
            cb.begin();
            cb.fillBuffer(BufferRef.of(a), 3, 4, 0);
            cb.executionBarrier(ExecutionStage.TRANSFER, ExecutionStage.TRANSFER, 0,
                    new MemoryBarrier[] {new MemoryBarrier(AccessScope.TRANSFER_WRITE, AccessScope.TRANSFER_READ)},
                    new BufferBarrier[] {new BufferBarrier(AccessScope.TRANSFER_WRITE, AccessScope.TRANSFER_READ,
                            BufferRef.of(a))});
            cb.copyBuffer(BufferRef.of(a), BufferRef.of(b), 0);
            cb.executionBarrier(ExecutionStage.TRANSFER, ExecutionStage.TRANSFER, 0, null, null);
            cb.fillBuffer(BufferRef.of(a, 0, 4), 9, 4, 0);
            cb.end();
            execute(cb, BindingTable.empty());
            assertArrayEquals(new int[] {3, 3, 3, 3}, readInts(b));
            assertArrayEquals(new int[] {9, 3, 3, 3}, readInts(a));
        }
    }

    @Test
    void barriersCheckTheirBufferRangesAndNulls() {
        try (CommandBuffer cb = create(0, CommandCategory.TRANSFER, 0); Buffer a = allocate(16)) {
            cb.begin();
            var range = assertStatus(StatusCode.OUT_OF_RANGE, () -> cb.executionBarrier(ExecutionStage.TRANSFER,
                    ExecutionStage.TRANSFER, 0, null, new BufferBarrier[] {new BufferBarrier(
                            AccessScope.TRANSFER_WRITE, AccessScope.TRANSFER_READ, BufferRef.of(a, 8, 16))}));
            assertTrue(range.getMessage().contains("[8, 24)"), range.getMessage());
            assertStatus(StatusCode.INVALID_ARGUMENT, () -> cb.executionBarrier(ExecutionStage.TRANSFER,
                    ExecutionStage.TRANSFER, 0, new MemoryBarrier[] {null}, null));
            cb.end();
        }
    }

    @Test
    void adviceIsAHintThatChecksItsArguments() {
        try (CommandBuffer cb = create(0, CommandCategory.TRANSFER, 1); Buffer a = ints(1, 2)) {
            assertStatus(StatusCode.FAILED_PRECONDITION, () -> cb.adviseBuffer(BufferRef.of(a), 0, 0, 0));
            cb.begin();
            cb.adviseBuffer(BufferRef.of(a), 0, 0, 0);
            cb.adviseBuffer(BufferRef.slot(0, 0, 8), 0, 0, 0);
            var flags = assertStatus(StatusCode.INVALID_ARGUMENT, () -> cb.adviseBuffer(BufferRef.of(a), 0x4, 0, 0));
            assertTrue(flags.getMessage().contains("0x4"), flags.getMessage());
            assertStatus(StatusCode.INVALID_ARGUMENT, () -> cb.adviseBuffer(null, 0, 0, 0));
            assertStatus(StatusCode.OUT_OF_RANGE, () -> cb.adviseBuffer(BufferRef.of(a, 4, 8), 0, 0, 0));
            assertStatus(StatusCode.OUT_OF_RANGE, () -> cb.adviseBuffer(BufferRef.slot(1, 0, 8), 0, 0, 0));
            cb.end();
            execute(cb, BindingTable.of(a));
            assertArrayEquals(new int[] {1, 2}, readInts(a), "advice never changes contents");
        }
    }

    @Test
    void collectivesAreUnimplementedWithoutTheCapability() {
        org.junit.jupiter.api.Assumptions.assumeFalse(
                DeviceCapability.has(device.capabilities(), DeviceCapability.COLLECTIVES),
                "device has collectives; its own suite covers them");
        var e = assertStatus(StatusCode.UNIMPLEMENTED, () -> device.createChannel(Device.QUEUE_AFFINITY_ANY,
                new ChannelParams(0, new byte[0], "", 0, 1)));
        assertTrue(e.getMessage().contains(device.info().name()), e.getMessage());
        try (CommandBuffer cb = create(0, CommandCategory.ANY, 0); Buffer a = allocate(16)) {
            cb.begin();
            int op = CollectiveOp.pack(CollectiveOp.KIND_ALL_REDUCE, CollectiveOp.REDUCTION_SUM,
                    CollectiveOp.ELEMENT_FLOAT_32);
            assertStatus(StatusCode.UNIMPLEMENTED, () -> cb.collective(null, op, 0, BufferRef.of(a), BufferRef.of(a), 4));
            cb.end();
        }
    }

    @Test
    void creationNamesTheBadArgument() {
        var mode = assertStatus(StatusCode.INVALID_ARGUMENT, () -> create(1 << 30, CommandCategory.ANY, 0));
        assertTrue(mode.getMessage().contains("mode"), mode.getMessage());
        var categories = assertStatus(StatusCode.INVALID_ARGUMENT, () -> create(0, 0, 0));
        assertTrue(categories.getMessage().contains("categories"), categories.getMessage());
        var capacity = assertStatus(StatusCode.INVALID_ARGUMENT, () -> create(0, CommandCategory.ANY, -2));
        assertTrue(capacity.getMessage().contains("capacity -2"), capacity.getMessage());
    }

    /** IREE validates events as dispatch-category commands; every device records by the same rules. */
    @Test
    void eventsNeedTheDispatchCategoryAndAdviceTheTransferCategory() {
        try (CommandBuffer transfer = create(0, CommandCategory.TRANSFER, 0);
                CommandBuffer dispatch = create(0, CommandCategory.DISPATCH, 0); Buffer a = allocate(4);
                Event event = device.createEvent()) {
            transfer.begin();
            dispatch.begin();
            assertStatus(StatusCode.FAILED_PRECONDITION, () -> transfer.signalEvent(event, ExecutionStage.TRANSFER));
            assertStatus(StatusCode.FAILED_PRECONDITION, () -> transfer.resetEvent(event, ExecutionStage.TRANSFER));
            assertStatus(StatusCode.FAILED_PRECONDITION, () -> transfer.waitEvents(new Event[] {event},
                    ExecutionStage.TRANSFER, ExecutionStage.TRANSFER));
            assertStatus(StatusCode.FAILED_PRECONDITION, () -> dispatch.adviseBuffer(BufferRef.of(a), 0, 0, 0));
            transfer.executionBarrier(ExecutionStage.TRANSFER, ExecutionStage.TRANSFER, 0);
            dispatch.signalEvent(event, ExecutionStage.DISPATCH);
            transfer.end();
            dispatch.end();
        }
    }

    /** IREE's creation rule: an inline command buffer is one-shot and has no binding table. */
    @Test
    void inlineCommandBuffersMustBeOneShotWithoutBindings() {
        int inline = CommandBufferMode.ONE_SHOT | CommandBufferMode.ALLOW_INLINE_EXECUTION;
        var notOneShot = assertStatus(StatusCode.INVALID_ARGUMENT,
                () -> create(CommandBufferMode.ALLOW_INLINE_EXECUTION, CommandCategory.ANY, 0));
        assertTrue(notOneShot.getMessage().contains("ONE_SHOT"), notOneShot.getMessage());
        var bindings = assertStatus(StatusCode.INVALID_ARGUMENT, () -> create(inline, CommandCategory.ANY, 1));
        assertTrue(bindings.getMessage().contains("bindingCapacity"), bindings.getMessage());
        try (CommandBuffer cb = create(inline, CommandCategory.TRANSFER, 0); Buffer a = allocate(4)) {
            cb.begin();
            cb.fillBuffer(BufferRef.of(a), 7, 1, 0);
            cb.end();
            execute(cb, BindingTable.empty());
            assertArrayEquals(new int[] {0x07070707}, readInts(a));
        }
    }
}
