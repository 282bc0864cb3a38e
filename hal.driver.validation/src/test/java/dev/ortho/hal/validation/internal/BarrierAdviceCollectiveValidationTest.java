package dev.ortho.hal.validation.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.AccessScope;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferBarrier;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.CollectiveOp;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceCapability;
import dev.ortho.hal.ExecutionStage;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryBarrier;
import dev.ortho.hal.MemoryType;
import org.junit.jupiter.api.Test;

/** Checks of barriers with memory/buffer barriers, buffer advice and collectives. */
class BarrierAdviceCollectiveValidationTest extends ValidationTestBase {
    private static final long ANY = Device.QUEUE_AFFINITY_ANY;
    private static final int ALL_REDUCE_SUM_F32 = CollectiveOp.pack(CollectiveOp.KIND_ALL_REDUCE,
            CollectiveOp.REDUCTION_SUM, CollectiveOp.ELEMENT_FLOAT_32);

    private CommandBuffer recording(int categories, int capacity) {
        CommandBuffer cb = device.createCommandBuffer(0, categories, ANY, capacity);
        cb.begin();
        return cb;
    }

    private static BufferBarrier barrier(BufferRef ref) {
        return new BufferBarrier(AccessScope.TRANSFER_WRITE, AccessScope.TRANSFER_READ, ref);
    }

    @Test
    void bufferBarriersNeedUsableBuffersInRange() {
        Buffer released = allocate(16);
        released.release();
        try (CommandBuffer cb = recording(CommandCategory.ANY, 1); Buffer a = allocate(16)) {
            int stage = ExecutionStage.TRANSFER;
            rejected(StatusCode.OUT_OF_RANGE, () -> cb.executionBarrier(stage, stage, 0, null,
                    new BufferBarrier[] {barrier(BufferRef.of(a, 8, 16))}), "commandBuffer.executionBarrier "
                    + "bufferBarriers[0]", "[8, 24)");
            rejected(StatusCode.OUT_OF_RANGE, () -> cb.executionBarrier(stage, stage, 0, null,
                    new BufferBarrier[] {barrier(BufferRef.slot(1, 0, 4))}), "bufferBarriers[0]", "slot 1",
                    "capacity 1");
            rejected(StatusCode.FAILED_PRECONDITION, () -> cb.waitEvents(new dev.ortho.hal.Event[0], stage, stage,
                    null, new BufferBarrier[] {barrier(BufferRef.of(released))}), "commandBuffer.waitEvents "
                    + "bufferBarriers[0]", "after its last release");
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.executionBarrier(stage, stage, 0, new MemoryBarrier[] {null},
                    null), "memoryBarriers[0]", "null");
            cb.executionBarrier(stage, stage, 0, new MemoryBarrier[] {new MemoryBarrier(1, 2)},
                    new BufferBarrier[] {barrier(BufferRef.of(a, 0, 8)), barrier(BufferRef.slot(0, 0, 4))});
        }
    }

    @Test
    void adviceNeedsATransferBufferInRangeAndNoFlags() {
        try (CommandBuffer transfer = recording(CommandCategory.TRANSFER, 1);
                CommandBuffer dispatchOnly = recording(CommandCategory.DISPATCH, 0); Buffer a = allocate(16);
                Buffer hostOnly = allocate(MemoryType.HOST_LOCAL, MemoryAccess.ALL, BufferUsage.DEFAULT, 16)) {
            rejected(StatusCode.INVALID_ARGUMENT, () -> transfer.adviseBuffer(BufferRef.of(a), 0x4, 0, 0),
                    "commandBuffer.adviseBuffer flags", "0x4");
            rejected(StatusCode.OUT_OF_RANGE, () -> transfer.adviseBuffer(BufferRef.of(a, 12, 8), 0, 0, 0),
                    "commandBuffer.adviseBuffer buffer", "[12, 20)");
            rejected(StatusCode.PERMISSION_DENIED, () -> transfer.adviseBuffer(BufferRef.of(hostOnly), 0, 0, 0),
                    "lacks DEVICE_VISIBLE");
            rejected(StatusCode.FAILED_PRECONDITION, () -> dispatchOnly.adviseBuffer(BufferRef.of(a), 0, 0, 0),
                    "category TRANSFER");
            transfer.adviseBuffer(BufferRef.slot(0, 0, 8), 0, 0, 0);
        }
    }

    @Test
    void withoutTheCollectivesCapabilityTheInnerDeviceReportsUnimplemented() {
        try (CommandBuffer cb = recording(CommandCategory.ANY, 0); Buffer a = allocate(16)) {
            StatusException e = assertThrows(StatusException.class,
                    () -> cb.collective(null, ALL_REDUCE_SUM_F32, 0, BufferRef.of(a), BufferRef.of(a), 4));
            assertEquals(StatusCode.UNIMPLEMENTED, e.code(), e.getMessage());
        }
    }

    @Test
    void collectivesAreCheckedAsIreeDoesOnADeviceThatHasThem() {
        spy.advertise(DeviceCapability.COLLECTIVES);
        try (CommandBuffer cb = recording(CommandCategory.ANY, 0); CommandBuffer transferOnly =
                recording(CommandCategory.TRANSFER, 0); Buffer a = allocate(16); Buffer b = allocate(16);
                Buffer readOnly = allocate(MemoryType.DEVICE_LOCAL, MemoryAccess.READ, BufferUsage.DEFAULT, 16)) {
            BufferRef send = BufferRef.of(a);
            BufferRef recv = BufferRef.of(b);
            rejected(StatusCode.FAILED_PRECONDITION, () -> transferOnly.collective(null, ALL_REDUCE_SUM_F32, 0, send,
                    recv, 4), "commandBuffer.collective", "category DISPATCH");
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.collective(null, 9, 0, send, recv, 4),
                    "commandBuffer.collective op", "kind 9");
            int broadcastSum = CollectiveOp.KIND_BROADCAST | CollectiveOp.REDUCTION_SUM << 8;
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.collective(null, broadcastSum, 0, send, recv, 4),
                    "reduction 1", "non-reducing");
            int sendOnly = CollectiveOp.pack(CollectiveOp.KIND_SEND, 0, CollectiveOp.ELEMENT_FLOAT_32);
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.collective(null, sendOnly, 0, send, recv, 4),
                    "commandBuffer.collective recv", "does not use a recv buffer");
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.collective(null, ALL_REDUCE_SUM_F32, 0, send, null, 4),
                    "commandBuffer.collective recv", "null");
            rejected(StatusCode.PERMISSION_DENIED, () -> cb.collective(null, ALL_REDUCE_SUM_F32, 0, send,
                    BufferRef.of(readOnly), 4), "commandBuffer.collective recv", "access WRITE");
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.collective(null, ALL_REDUCE_SUM_F32, 0, send, recv, 4),
                    "commandBuffer.collective channel", "is null");
        }
    }
}
