package dev.ortho.hal.validation.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.ortho.base.StatusCode;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Device;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.DispatchFlags;
import dev.ortho.hal.Event;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutionStage;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryType;
import dev.ortho.hal.SemaphoreList;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** Recording checks of command buffers: one negative test per check, the inner command buffer untouched. */
class CommandBufferValidationTest extends ValidationTestBase {
    private static final long ANY = Device.QUEUE_AFFINITY_ANY;

    private CommandBuffer recording(int categories, int capacity) {
        CommandBuffer cb = device.createCommandBuffer(0, categories, ANY, capacity);
        cb.begin();
        return cb;
    }

    @Test
    void recordingOutsideBeginEndIsFailedPrecondition() {
        try (CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.ANY, ANY, 0); Buffer a = allocate(4)) {
            rejected(StatusCode.FAILED_PRECONDITION, () -> cb.fillBuffer(BufferRef.of(a), 0, 1, 0),
                    "commandBuffer.fillBuffer", "INITIAL");
            rejected(StatusCode.FAILED_PRECONDITION, cb::end, "commandBuffer.end", "INITIAL");
            cb.begin();
            rejected(StatusCode.FAILED_PRECONDITION, cb::begin, "already recording");
            cb.end();
            rejected(StatusCode.FAILED_PRECONDITION, () -> cb.fillBuffer(BufferRef.of(a), 0, 1, 0), "ENDED");
        }
    }

    @Test
    void reRecordingAnEndedCommandBufferIsFailedPrecondition() {
        try (CommandBuffer cb = recording(CommandCategory.ANY, 0)) {
            cb.end();
            rejected(StatusCode.FAILED_PRECONDITION, cb::begin, "commandBuffer.begin", "re-recording");
        }
    }

    @Test
    void unbalancedDebugGroupsAreFailedPrecondition() {
        try (CommandBuffer cb = recording(CommandCategory.ANY, 0)) {
            rejected(StatusCode.FAILED_PRECONDITION, cb::endDebugGroup, "commandBuffer.endDebugGroup", "depth 0");
            cb.beginDebugGroup("outer");
            rejected(StatusCode.FAILED_PRECONDITION, cb::end, "commandBuffer.end", "depth is 1");
            cb.endDebugGroup();
            cb.end();
        }
    }

    @Test
    void commandsOutsideTheCategoriesAreFailedPrecondition() {
        try (CommandBuffer dispatchOnly = recording(CommandCategory.DISPATCH, 0);
                CommandBuffer transferOnly = recording(CommandCategory.TRANSFER, 0);
                ExecutableCache cache = device.createExecutableCache("test"); Executable exe = builtins(cache);
                Buffer a = allocate(8); Event event = device.createEvent()) {
            rejected(StatusCode.FAILED_PRECONDITION, () -> dispatchOnly.fillBuffer(BufferRef.of(a), 0, 1, 0),
                    "commandBuffer.fillBuffer", "category TRANSFER", "allows only DISPATCH");
            rejected(StatusCode.FAILED_PRECONDITION, () -> transferOnly.dispatch(exe, exe.lookupFunction("fill_x32"),
                    DispatchConfig.ofCount(1, 1, 1), i32(2, 1), new BufferRef[] {BufferRef.of(a)}, 0),
                    "commandBuffer.dispatch", "category DISPATCH", "allows only TRANSFER");
            rejected(StatusCode.FAILED_PRECONDITION, () -> transferOnly.signalEvent(event, ExecutionStage.TRANSFER),
                    "commandBuffer.signalEvent", "DISPATCH");
        }
    }

    @Test
    void aBufferWithoutTheRequiredMemoryTypeIsPermissionDenied() {
        // host-local memory the device cannot see: IREE's queue operations need DEVICE_VISIBLE
        try (CommandBuffer cb = recording(CommandCategory.ANY, 0);
                Buffer hostOnly = allocate(MemoryType.HOST_LOCAL, MemoryAccess.ALL, BufferUsage.DEFAULT, 16)) {
            rejected(StatusCode.PERMISSION_DENIED, () -> cb.fillBuffer(BufferRef.of(hostOnly), 0, 4, 0),
                    "commandBuffer.fillBuffer target", "lacks DEVICE_VISIBLE");
        }
    }

    @Test
    void aBufferWithoutTheRequiredUsageIsPermissionDenied() {
        try (CommandBuffer cb = recording(CommandCategory.ANY, 0); ExecutableCache cache = device.createExecutableCache("t");
                Executable exe = builtins(cache);
                Buffer transferOnly = allocate(MemoryType.DEVICE_LOCAL, MemoryAccess.ALL, BufferUsage.TRANSFER, 16);
                Buffer count = allocate(16)) {
            rejected(StatusCode.PERMISSION_DENIED, () -> cb.dispatch(exe, exe.lookupFunction("fill_x32"),
                    DispatchConfig.ofCount(1, 1, 1), i32(2, 1), new BufferRef[] {BufferRef.of(transferOnly)}, 0),
                    "commandBuffer.dispatch bindings[0]", "lacks DISPATCH_STORAGE");
            rejected(StatusCode.PERMISSION_DENIED, () -> cb.dispatch(exe, exe.lookupFunction("fill_x32"),
                    DispatchConfig.indirect(BufferRef.of(count)), i32(2, 1), new BufferRef[] {BufferRef.of(count)},
                    DispatchFlags.DYNAMIC_INDIRECT_PARAMETERS),
                    "config.workgroupCountRef", "lacks DISPATCH_INDIRECT_PARAMETERS");
        }
    }

    @Test
    void aBufferTheDeviceCannotUseOnItsQueuesIsPermissionDenied() {
        spy.denyCompatibility(dev.ortho.hal.Allocator.COMPATIBILITY_QUEUE_TRANSFER);
        try (CommandBuffer cb = recording(CommandCategory.ANY, 0); Buffer a = allocate(16)) {
            rejected(StatusCode.PERMISSION_DENIED, () -> cb.fillBuffer(BufferRef.of(a), 0, 4, 0),
                    "commandBuffer.fillBuffer target", "cannot use this buffer", "TRANSFER_TARGET");
        }
    }

    @Test
    void aBufferWithoutTheRequiredAccessIsPermissionDenied() {
        try (CommandBuffer cb = recording(CommandCategory.ANY, 0);
                Buffer readOnly = allocate(MemoryType.DEVICE_LOCAL, MemoryAccess.READ, BufferUsage.DEFAULT, 16);
                Buffer other = allocate(16)) {
            rejected(StatusCode.PERMISSION_DENIED, () -> cb.fillBuffer(BufferRef.of(readOnly), 0, 4, 0),
                    "commandBuffer.fillBuffer target", "access WRITE", "allows READ");
            rejected(StatusCode.PERMISSION_DENIED, () -> cb.copyBuffer(BufferRef.of(other), BufferRef.of(readOnly), 0),
                    "commandBuffer.copyBuffer target", "access WRITE");
            cb.copyBuffer(BufferRef.of(readOnly), BufferRef.of(other), 0); // reading it is fine
        }
    }

    @Test
    void aRangeOutsideTheBufferIsOutOfRange() {
        try (CommandBuffer cb = recording(CommandCategory.ANY, 0); Buffer a = allocate(16)) {
            rejected(StatusCode.OUT_OF_RANGE, () -> cb.fillBuffer(BufferRef.of(a, 8, 16), 0, 4, 0),
                    "commandBuffer.fillBuffer target", "[8, 24)", "16-byte");
            rejected(StatusCode.OUT_OF_RANGE, () -> cb.updateBuffer(i32(1, 2, 3), BufferRef.of(a, 8, 8), 0),
                    "commandBuffer.updateBuffer target", "touches 12 bytes", "holds 8");
            rejected(StatusCode.OUT_OF_RANGE, () -> cb.fillBuffer(BufferRef.of(a, 20, Buffer.WHOLE_BUFFER), 0, 4, 0),
                    "offset 20", "16-byte");
        }
    }

    @Test
    void fillPatternLengthAndAlignmentAreInvalidArgument() {
        try (CommandBuffer cb = recording(CommandCategory.ANY, 1); Buffer a = allocate(16)) {
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.fillBuffer(BufferRef.of(a), 0, 3, 0),
                    "commandBuffer.fillBuffer patternLength", "3", "1, 2, 4");
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.fillBuffer(BufferRef.of(a, 2, 8), 0, 4, 0),
                    "commandBuffer.fillBuffer target", "offset 2", "multiple of 4");
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.fillBuffer(BufferRef.of(a, 0, 6), 0, 4, 0),
                    "length 6", "multiple of 4");
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.fillBuffer(BufferRef.slot(0, 2, 4), 0, 4, 0),
                    "offset 2", "length 4", "multiple of 4");
        }
    }

    @Test
    void updatesLargerThan64KiBAreOutOfRange() {
        try (CommandBuffer cb = recording(CommandCategory.ANY, 0); Buffer a = allocate(70_000)) {
            rejected(StatusCode.OUT_OF_RANGE, () -> cb.updateBuffer(MemorySegment.ofArray(new byte[65_537]),
                    BufferRef.of(a), 0), "commandBuffer.updateBuffer source", "65537 bytes", "65536");
            cb.updateBuffer(MemorySegment.ofArray(new byte[65_536]), BufferRef.of(a), 0);
        }
    }

    @Test
    void copiesOfDifferentLengthsOrOverlappingRangesAreInvalidArgument() {
        try (CommandBuffer cb = recording(CommandCategory.ANY, 0); Buffer a = allocate(32); Buffer b = allocate(32);
                Buffer low = a.subspan(0, 16); Buffer high = a.subspan(8, 16)) {
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.copyBuffer(BufferRef.of(a, 0, 8), BufferRef.of(b, 0, 12), 0),
                    "commandBuffer.copyBuffer target", "length 12", "source length 8");
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.copyBuffer(BufferRef.of(a, 0, 8), BufferRef.of(a, 4, 8), 0),
                    "overlaps", "[4, 12)", "[0, 8)");
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.copyBuffer(BufferRef.of(low, 4, 8), BufferRef.of(high, 0, 8), 0),
                    "overlaps", "[8, 16)", "[4, 12)");
            cb.copyBuffer(BufferRef.of(a, 0, 8), BufferRef.of(a, 8, 8), 0); // adjacent is fine
        }
    }

    @Test
    void slotsAtOrBeyondTheBindingCapacityAreOutOfRange() {
        try (CommandBuffer cb = recording(CommandCategory.ANY, 2)) {
            rejected(StatusCode.OUT_OF_RANGE, () -> cb.fillBuffer(BufferRef.slot(2, 0, 4), 0, 4, 0),
                    "commandBuffer.fillBuffer target", "slot 2", "capacity 2");
        }
    }

    @Test
    void dispatchConstantsMustBeWholeWordsMatchingTheFunction() {
        try (CommandBuffer cb = recording(CommandCategory.ANY, 0); ExecutableCache cache = device.createExecutableCache("t");
                Executable exe = builtins(cache); Buffer out = allocate(8)) {
            int fill = exe.lookupFunction("fill_x32");
            BufferRef[] one = {BufferRef.of(out)};
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.dispatch(exe, fill, DispatchConfig.ofCount(1, 1, 1),
                    MemorySegment.ofArray(new byte[6]), one, 0), "commandBuffer.dispatch constants", "6 bytes",
                    "multiple of 4");
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.dispatch(exe, fill, DispatchConfig.ofCount(1, 1, 1), i32(2),
                    one, 0), "commandBuffer.dispatch constants", "1 constants", "takes 2");
        }
    }

    @Test
    void dispatchBindingsMustMatchTheFunction() {
        try (CommandBuffer cb = recording(CommandCategory.ANY, 0); ExecutableCache cache = device.createExecutableCache("t");
                Executable exe = builtins(cache); Buffer out = allocate(8)) {
            int add = exe.lookupFunction("add_f32");
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.dispatch(exe, add, DispatchConfig.ofCount(1, 1, 1), i32(2),
                    new BufferRef[] {BufferRef.of(out)}, 0), "commandBuffer.dispatch bindings", "1 bindings", "uses 3");
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.dispatch(exe, add, DispatchConfig.ofCount(1, 1, 1), i32(2),
                    new BufferRef[] {BufferRef.of(out), null, BufferRef.of(out)}, 0), "bindings[1]", "is null");
        }
    }

    @Test
    void dispatchFunctionOrdinalAndWorkgroupCountsAreBounded() {
        try (CommandBuffer cb = recording(CommandCategory.ANY, 0); ExecutableCache cache = device.createExecutableCache("t");
                Executable exe = builtins(cache); Buffer out = allocate(8)) {
            BufferRef[] one = {BufferRef.of(out)};
            rejected(StatusCode.OUT_OF_RANGE, () -> cb.dispatch(exe, exe.functionCount(), DispatchConfig.ofCount(1, 1, 1),
                    i32(2, 1), one, 0), "commandBuffer.dispatch function", "ordinal " + exe.functionCount(),
                    "[0, " + exe.functionCount() + ")");
            rejected(StatusCode.OUT_OF_RANGE, () -> cb.dispatch(exe, exe.lookupFunction("fill_x32"),
                    DispatchConfig.ofCount(1, -1, 1), i32(2, 1), one, 0), "config.workgroupCountY", "4294967295",
                    "2147483647");
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.dispatch(exe, exe.lookupFunction("fill_x32"),
                    new DispatchConfig(4, 0, 1, 1, 1, 1, null, 0), i32(2, 1), one, 0), "config.workgroupSize",
                    "(4, 0, 1)");
        }
    }

    @Test
    void indirectWorkgroupCountsMustBeFourAlignedAndTwelveBytes() {
        try (CommandBuffer cb = recording(CommandCategory.ANY, 0); ExecutableCache cache = device.createExecutableCache("t");
                Executable exe = builtins(cache); Buffer out = allocate(8);
                Buffer count = allocate(MemoryType.DEVICE_LOCAL, MemoryAccess.ALL,
                        BufferUsage.DEFAULT | BufferUsage.DISPATCH_INDIRECT_PARAMETERS, 32)) {
            int fill = exe.lookupFunction("fill_x32");
            BufferRef[] one = {BufferRef.of(out)};
            long flags = DispatchFlags.DYNAMIC_INDIRECT_PARAMETERS;
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.dispatch(exe, fill,
                    DispatchConfig.indirect(BufferRef.of(count, 2, 12)), i32(2, 1), one, flags),
                    "config.workgroupCountRef", "offset 2", "multiple of 4");
            rejected(StatusCode.OUT_OF_RANGE, () -> cb.dispatch(exe, fill,
                    DispatchConfig.indirect(BufferRef.of(count, 0, 8)), i32(2, 1), one, flags),
                    "config.workgroupCountRef", "length 8", "12 bytes");
            rejected(StatusCode.OUT_OF_RANGE, () -> cb.dispatch(exe, fill,
                    DispatchConfig.indirect(BufferRef.of(count, 24, Buffer.WHOLE_BUFFER)), i32(2, 1), one, flags),
                    "touches 12 bytes", "holds 8");
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.dispatch(exe, fill, DispatchConfig.indirect(null), i32(2, 1),
                    one, flags), "config.workgroupCountRef", "null");
            cb.dispatch(exe, fill, DispatchConfig.indirect(BufferRef.of(count, 20, 12)), i32(2, 1), one, flags);
        }
    }

    @Test
    void indirectArgumentsTakeExactlyOneReadableParameterBuffer() {
        try (CommandBuffer cb = recording(CommandCategory.ANY, 0); ExecutableCache cache = device.createExecutableCache("t");
                Executable exe = builtins(cache); Buffer out = allocate(16)) {
            int fill = exe.lookupFunction("fill_x32");
            long flags = DispatchFlags.STATIC_INDIRECT_ARGUMENTS;
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.dispatch(exe, fill, DispatchConfig.ofCount(1, 1, 1), i32(2, 1),
                    new BufferRef[] {BufferRef.of(out), BufferRef.of(out)}, flags), "commandBuffer.dispatch bindings",
                    "2 bindings", "exactly 1");
            rejected(StatusCode.PERMISSION_DENIED, () -> cb.dispatch(exe, fill, DispatchConfig.ofCount(1, 1, 1), i32(2, 1),
                    new BufferRef[] {BufferRef.of(out)}, flags), "bindings[0]", "lacks DISPATCH_INDIRECT_PARAMETERS");
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.dispatch(exe, fill, DispatchConfig.ofCount(1, 1, 1),
                    MemorySegment.ofArray(new byte[3]), new BufferRef[] {BufferRef.of(out)}, 0), "3 bytes");
        }
    }

    @Test
    void executablesAndEventsOfAnotherDeviceAreInvalidArgument() {
        try (ValidatingDevice other = new ValidatingDevice(localSync());
                ExecutableCache cache = other.createExecutableCache("other"); Executable foreign = builtins(cache);
                Event foreignEvent = other.createEvent(); CommandBuffer cb = recording(CommandCategory.ANY, 0);
                Buffer out = allocate(8)) {
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.dispatch(foreign, 0, DispatchConfig.ofCount(1, 1, 1),
                    i32(2, 1), new BufferRef[] {BufferRef.of(out)}, 0), "commandBuffer.dispatch executable",
                    "belongs to");
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.signalEvent(foreignEvent, ExecutionStage.DISPATCH),
                    "commandBuffer.signalEvent event", "belongs to");
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.fillBuffer(BufferRef.of(other.allocator()
                    .allocateBuffer(dev.ortho.hal.BufferParams.hostLocal(), 4)), 0, 4, 0), "was created by");
        }
    }

    @Test
    void releasedBuffersEventsAndExecutablesCannotBeRecorded() {
        Buffer a = allocate(8);
        Event event = device.createEvent();
        ExecutableCache cache = device.createExecutableCache("t");
        Executable exe = builtins(cache);
        a.release();
        event.release();
        exe.release();
        try (CommandBuffer cb = recording(CommandCategory.ANY, 0); Buffer out = allocate(8)) {
            rejected(StatusCode.FAILED_PRECONDITION, () -> cb.fillBuffer(BufferRef.of(a), 0, 4, 0),
                    "commandBuffer.fillBuffer target", "after its last release");
            rejected(StatusCode.FAILED_PRECONDITION, () -> cb.waitEvents(new Event[] {event}, 0, 0),
                    "commandBuffer.waitEvents events[0]", "after its last release");
            rejected(StatusCode.FAILED_PRECONDITION, () -> cb.dispatch(exe, 0, DispatchConfig.ofCount(1, 1, 1),
                    i32(2, 1), new BufferRef[] {BufferRef.of(out)}, 0), "commandBuffer.dispatch executable",
                    "after its last release");
        } finally {
            cache.release();
        }
    }

    @Test
    void aRejectedCallLeavesTheCommandBufferUsable() {
        try (CommandBuffer cb = recording(CommandCategory.ANY, 0); Buffer a = allocate(8)) {
            rejected(StatusCode.INVALID_ARGUMENT, () -> cb.fillBuffer(BufferRef.of(a), 0, 3, 0));
            cb.fillBuffer(BufferRef.of(a), 0x07070707, 4, 0);
            cb.end();
            try (var done = device.createSemaphore(0)) {
                device.queueExecute(ANY, SemaphoreList.empty(), SemaphoreList.of(done, 1), cb, BindingTable.empty(), 0);
            }
            assertArrayEquals(new int[] {0x07070707, 0x07070707}, readInts(a));
        }
    }
}
