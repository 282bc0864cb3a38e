package dev.ortho.hal.validation.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.ortho.base.StatusCode;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Device;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Event;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutionStage;
import dev.ortho.hal.SemaphoreList;
import org.junit.jupiter.api.Test;

/**
 * Write hazards inside a barrier region ({@link RegionHazards}): the commands of one region may
 * run concurrently, so a transfer writing bytes another command of the region touches is refused
 * when recorded; barriers and event waits end the region; disjoint ranges and reads that only
 * meet each other are legal, and dispatch bindings are not tracked.
 */
class RegionHazardValidationTest extends ValidationTestBase {
    private static final long ANY = Device.QUEUE_AFFINITY_ANY;
    private static final int T = ExecutionStage.TRANSFER;

    private CommandBuffer recording(int capacity) {
        CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.ANY, ANY, capacity);
        cb.begin();
        return cb;
    }

    @Test
    void anUpdateOverlappingAFillOfTheSameRegionIsRefused() {
        try (CommandBuffer cb = recording(0); Buffer a = allocate(16)) {
            cb.fillBuffer(BufferRef.of(a), 0x22, 1, 0);
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.updateBuffer(i32(1, 2), BufferRef.of(a, 8, 8), 0),
                    "commandBuffer.updateBuffer target", "allocation range [8, 16) is written",
                    "[0, 16) is written by commandBuffer.fillBuffer (command 0", "executionBarrier");
        }
    }

    @Test
    void aBarrierOrAnEventWaitEndsTheRegionAndTheResultIsTheRecordedOrder() {
        try (CommandBuffer cb = recording(0); Buffer a = allocate(16); Buffer b = allocate(16);
                Event event = device.createEvent()) {
            cb.fillBuffer(BufferRef.of(a), 0x22, 1, 0);
            cb.executionBarrier(T, T, 0);
            cb.updateBuffer(i32(1, 2), BufferRef.of(a, 8, 8), 0);
            cb.signalEvent(event, T);
            cb.waitEvents(new Event[] {event}, T, T);
            cb.copyBuffer(BufferRef.of(a), BufferRef.of(b), 0);
            cb.end();
            try (var done = device.createSemaphore(0)) {
                device.queueExecute(ANY, SemaphoreList.empty(), SemaphoreList.of(done, 1), cb, BindingTable.empty(), 0);
            }
            assertArrayEquals(new int[] {0x22222222, 0x22222222, 1, 2}, readInts(b));
        }
    }

    @Test
    void disjointWritesAndSharedReadsShareARegion() {
        try (CommandBuffer cb = recording(0); Buffer a = allocate(16); Buffer b = allocate(16); Buffer c = allocate(16)) {
            cb.fillBuffer(BufferRef.of(a, 0, 8), 1, 4, 0);
            cb.updateBuffer(i32(2, 3), BufferRef.of(a, 8, 8), 0);
            cb.fillBuffer(BufferRef.of(b), 4, 4, 0);
            cb.executionBarrier(T, T, 0);
            cb.copyBuffer(BufferRef.of(b, 0, 8), BufferRef.of(c, 0, 8), 0);
            cb.copyBuffer(BufferRef.of(b, 4, 8), BufferRef.of(c, 8, 8), 0); // reads overlap reads: legal
            cb.end();
        }
    }

    @Test
    void aCopyReadingWhatAnEarlierFillWritesIsRefusedAndAWriteOverAnEarlierReadToo() {
        try (CommandBuffer cb = recording(0); Buffer a = allocate(16); Buffer b = allocate(16)) {
            cb.fillBuffer(BufferRef.of(a, 4, 4), 1, 4, 0);
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.copyBuffer(BufferRef.of(a, 0, 8), BufferRef.of(b, 0, 8), 0),
                    "commandBuffer.copyBuffer source", "[0, 8) is read", "[4, 8) is written by commandBuffer.fillBuffer");
            cb.executionBarrier(T, T, 0);
            cb.copyBuffer(BufferRef.of(a, 0, 8), BufferRef.of(b, 0, 8), 0);
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.fillBuffer(BufferRef.of(a, 4, 12), 0, 4, 0),
                    "commandBuffer.fillBuffer target", "[4, 16) is written", "[0, 8) is read by commands from "
                            + "commandBuffer.copyBuffer (command 0");
            cb.fillBuffer(BufferRef.of(a, 8, 8), 0, 4, 0); // past what the copy reads
            cb.end();
        }
    }

    @Test
    void dispatchBindingsAreNotHazardsBecauseIreesCompilerFillsTheUnusedPartOfABoundRange() {
        try (CommandBuffer cb = recording(0); ExecutableCache cache = device.createExecutableCache("t");
                Executable exe = builtins(cache); Buffer out = allocate(16)) {
            int fill = exe.lookupFunction("fill_x32");
            // binds all 16 bytes, writes the first 8 (2 elements); the fill of the rest shares the region
            cb.dispatch(exe, fill, DispatchConfig.ofCount(1, 1, 1), i32(2, 5), new BufferRef[] {BufferRef.of(out)}, 0);
            cb.fillBuffer(BufferRef.of(out, 8, 8), 7, 4, 0);
            cb.end();
            try (var done = device.createSemaphore(0)) {
                device.queueExecute(ANY, SemaphoreList.empty(), SemaphoreList.of(done, 1), cb, BindingTable.empty(), 0);
            }
            assertArrayEquals(new int[] {5, 5, 7, 7}, readInts(out));
        }
    }

    @Test
    void subspansAreComparedInTheirAllocation() {
        try (CommandBuffer cb = recording(0); Buffer a = allocate(32)) {
            Buffer high = device.allocator().allocateBuffer(dev.ortho.hal.BufferParams.hostLocal(), 4); // unrelated
            try (high; Buffer span = a.subspan(16, 16)) {
                cb.fillBuffer(BufferRef.of(a, 0, 20), 1, 4, 0);
                cb.fillBuffer(BufferRef.of(high), 1, 4, 0);
                rejected(StatusCode.INVALID_ARGUMENT, () -> cb.fillBuffer(BufferRef.of(span, 0, 8), 2, 4, 0),
                        "allocation range [16, 24) is written", "[0, 20) is written by commandBuffer.fillBuffer");
                cb.fillBuffer(BufferRef.of(span, 4, 12), 2, 4, 0);
            }
            cb.end();
        }
    }

    @Test
    void indirectReferencesAreComparedBySlotAndOpenEndedRangesReachTheSlotsEnd() {
        try (CommandBuffer cb = recording(2)) {
            cb.fillBuffer(BufferRef.slot(0, 0, 8), 1, 4, 0);
            cb.fillBuffer(BufferRef.slot(1, 0, 8), 1, 4, 0); // another slot: aliasing is known only at submission
            cb.fillBuffer(BufferRef.slot(0, 8, 8), 1, 4, 0);
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.fillBuffer(BufferRef.slot(1, 4, Buffer.WHOLE_BUFFER), 1, 4,
                    0), "binding slot 1 range [4, " + Long.MAX_VALUE + ") is written",
                    "[0, 8) is written by commandBuffer.fillBuffer (command 1");
            cb.end();
        }
    }
}
