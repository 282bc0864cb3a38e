package dev.ortho.hal.validation.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandBufferMode;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Device;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryType;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.spi.ForwardingDevice;
import dev.ortho.hal.spi.ForwardingSemaphore;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Submission checks: command buffer state, binding tables, semaphore lists, queue operation arguments. */
class SubmissionValidationTest extends ValidationTestBase {
    private static final long ANY = Device.QUEUE_AFFINITY_ANY;
    private static final SemaphoreList NONE = SemaphoreList.empty();

    private void execute(CommandBuffer cb, BindingTable table) {
        device.queueExecute(ANY, NONE, NONE, cb, table, 0);
    }

    @Test
    void aCommandBufferMustBeRecordedAndEndedBeforeSubmission() {
        try (CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.ANY, ANY, 0)) {
            rejected(StatusCode.FAILED_PRECONDITION, () -> execute(cb, BindingTable.empty()), "device.queueExecute",
                    "has not been recorded");
            cb.begin();
            rejected(StatusCode.FAILED_PRECONDITION, () -> execute(cb, BindingTable.empty()), "device.queueExecute",
                    "still recording");
        }
    }

    @Test
    void aOneShotCommandBufferIsSubmittedOnce() {
        try (CommandBuffer cb = device.createCommandBuffer(CommandBufferMode.ONE_SHOT, CommandCategory.ANY, ANY, 0);
                Buffer a = allocate(4)) {
            cb.begin();
            cb.fillBuffer(BufferRef.of(a), 1, 1, 0);
            cb.end();
            execute(cb, BindingTable.empty());
            rejected(StatusCode.FAILED_PRECONDITION, () -> execute(cb, BindingTable.empty()), "ONE_SHOT",
                    "submitted already");
        }
    }

    @Test
    void inlineCommandBuffersAreOneShotWithoutBindingsOrWaits() {
        int inline = CommandBufferMode.ONE_SHOT | CommandBufferMode.ALLOW_INLINE_EXECUTION;
        rejected(StatusCode.INVALID_ARGUMENT, () -> device.createCommandBuffer(CommandBufferMode.ALLOW_INLINE_EXECUTION,
                CommandCategory.ANY, ANY, 0), "device.createCommandBuffer mode", "must be ONE_SHOT");
        rejected(StatusCode.INVALID_ARGUMENT, () -> device.createCommandBuffer(inline, CommandCategory.ANY, ANY, 1),
                "device.createCommandBuffer bindingCapacity", "capacity must be 0");
        rejected(StatusCode.INVALID_ARGUMENT, () -> device.createCommandBuffer(1 << 12, CommandCategory.ANY, ANY, 0),
                "unknown bits");
        rejected(StatusCode.INVALID_ARGUMENT, () -> device.createCommandBuffer(0, 0, ANY, 0),
                "device.createCommandBuffer categories");
        rejected(StatusCode.INVALID_ARGUMENT, () -> device.createCommandBuffer(0, CommandCategory.ANY, ANY, -1),
                "bindingCapacity", "capacity -1");
        rejected(StatusCode.OUT_OF_RANGE, () -> device.createCommandBuffer(0, CommandCategory.ANY, ANY,
                BufferRef.MAX_SLOT + 2), "bindingCapacity", String.valueOf(BufferRef.MAX_SLOT + 1));
        try (CommandBuffer cb = device.createCommandBuffer(inline, CommandCategory.ANY, ANY, 0);
                Semaphore s = device.createSemaphore(1)) {
            cb.begin();
            cb.end();
            rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueExecute(ANY, SemaphoreList.of(s, 1), NONE, cb,
                    BindingTable.empty(), 0), "device.queueExecute waits", "1 waits", "0 waits");
        }
    }

    @Test
    void aMissingOrTooSmallBindingTableIsRefused() {
        try (CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.TRANSFER, ANY, 4); Buffer a = allocate(8)) {
            cb.begin();
            cb.fillBuffer(BufferRef.slot(2, 0, 4), 9, 4, 0);
            cb.end();
            rejected(StatusCode.INVALID_ARGUMENT, () -> execute(cb, BindingTable.empty()), "device.queueExecute bindings",
                    "no binding table", "3 slots");
            rejected(StatusCode.OUT_OF_RANGE, () -> execute(cb, BindingTable.of(a, a)), "has 2 slots", "slot 2",
                    "at least 3");
            rejected(StatusCode.INVALID_ARGUMENT, () -> execute(cb, BindingTable.of(a, a, null)), "slot 2",
                    "is empty");
            execute(cb, BindingTable.of(null, null, a)); // unused slots may be empty
            assertArrayEquals(new int[] {9, 0}, readInts(a));
        }
    }

    @Test
    void eachUsedSlotMustMeetTheMergedRequirementsOfItsCommands() {
        try (CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.ANY, ANY, 1);
                ExecutableCache cache = device.createExecutableCache("t"); Executable exe = builtins(cache);
                Buffer storage = allocate(64);
                Buffer transferOnly = allocate(MemoryType.DEVICE_LOCAL, MemoryAccess.ALL, BufferUsage.TRANSFER, 64);
                Buffer small = allocate(16)) {
            cb.begin();
            cb.fillBuffer(BufferRef.slot(0, 4, 8), 5, 4, 0); // TRANSFER_TARGET, WRITE, [4, 12), 4-aligned
            cb.dispatch(exe, exe.lookupFunction("fill_x32"), DispatchConfig.ofCount(1, 1, 1), i32(2, 1),
                    new BufferRef[] {BufferRef.slot(0, 16, 8)}, 0); // DISPATCH_STORAGE, [16, 24)
            cb.end();
            rejected(StatusCode.PERMISSION_DENIED, () -> execute(cb, BindingTable.of(transferOnly)),
                    "device.queueExecute bindings slot 0", "lacks DISPATCH_STORAGE");
            rejected(StatusCode.OUT_OF_RANGE, () -> execute(cb, BindingTable.of(small)), "bindings slot 0",
                    "reach byte 24", "binds only 16");
            rejected(StatusCode.OUT_OF_RANGE, () -> execute(cb, BindingTable.of(new Buffer[] {storage},
                    new long[] {48}, new long[] {32})), "bindings slot 0", "[48, 80)", "64-byte");
            rejected(StatusCode.INVALID_ARGUMENT, () -> execute(cb, BindingTable.of(new Buffer[] {storage},
                    new long[] {2}, new long[] {40})), "bindings slot 0", "offset 2", "multiple of 4");
            execute(cb, BindingTable.of(storage));
            int[] values = readInts(storage);
            assertEquals(5, values[1]);
            assertEquals(1, values[4]);
        }
    }

    @Test
    void aSlotWrittenByATransferNeedsWriteAccess() {
        // (a dispatch binding asks for ANY access, which IREE's merge lets through; a fill alone needs WRITE)
        try (CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.TRANSFER, ANY, 1);
                Buffer readOnly = allocate(MemoryType.DEVICE_LOCAL, MemoryAccess.READ, BufferUsage.DEFAULT, 64)) {
            cb.begin();
            cb.fillBuffer(BufferRef.slot(0, 0, 8), 5, 4, 0);
            cb.end();
            rejected(StatusCode.PERMISSION_DENIED, () -> execute(cb, BindingTable.of(readOnly)),
                    "device.queueExecute bindings slot 0", "access WRITE", "allows READ");
        }
    }

    @Test
    void commandBuffersOfAnotherDeviceAreInvalidArgument() {
        try (ValidatingDevice other = new ValidatingDevice(localSync());
                CommandBuffer foreign = other.createCommandBuffer(0, CommandCategory.ANY, ANY, 0)) {
            foreign.begin();
            foreign.end();
            rejected(StatusCode.INVALID_ARGUMENT, () -> execute(foreign, BindingTable.empty()),
                    "device.queueExecute commandBuffer", "was not created by");
        }
    }

    @Test
    void semaphoreValuesBeyondIreesMaximumAreOutOfRange() {
        try (Semaphore s = device.createSemaphore(0)) {
            rejected(StatusCode.OUT_OF_RANGE, () -> device.queueBarrier(ANY, NONE,
                    SemaphoreList.of(s, Semaphore.MAX_VALUE + 1), 0), "device.queueBarrier signals[0]",
                    String.valueOf(Semaphore.MAX_VALUE + 1), String.valueOf(Semaphore.MAX_VALUE));
            rejected(StatusCode.OUT_OF_RANGE, () -> device.queueBarrier(ANY, SemaphoreList.of(s, -1), NONE, 0),
                    "device.queueBarrier waits[0]", "-1");
            rejected(StatusCode.OUT_OF_RANGE, () -> device.createSemaphore(Semaphore.MAX_VALUE + 1),
                    "device.createSemaphore initialValue");
        }
    }

    @Test
    void signalsMustStrictlyIncrease() {
        try (Semaphore s = device.createSemaphore(3); Buffer a = allocate(4)) {
            rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueFill(ANY, NONE, SemaphoreList.of(s, 3), a, 0, 4, 1,
                    4, 0), "device.queueFill signals[0]", "value 3", "current value 3");
            rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueBarrier(ANY, NONE,
                    SemaphoreList.of(new Semaphore[] {s, s}, new long[] {4, 5}), 0), "signals[1]", "also signals[0]");
            assertArrayEquals(new int[] {0}, readInts(a));
        }
    }

    @Test
    void aSignalAlreadyScheduledByAnEarlierSubmissionIsInvalidArgument() {
        try (Semaphore s = device.createSemaphore(0)) {
            AtomicReference<SemaphoreList> kept = new AtomicReference<>();
            device.queueHostCall(ANY, NONE, SemaphoreList.of(s, 2), (d, args, signals) -> {
                kept.set(signals);
                return false; // deferred: the semaphore will reach 2 later
            }, null, 0);
            rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueBarrier(ANY, NONE, SemaphoreList.of(s, 2), 0),
                    "device.queueBarrier signals[0]", "value 2", "earlier submission will signal");
            kept.get().signal();
            assertEquals(2, s.query());
        }
    }

    @Test
    void waitingOnAFailedSemaphoreWithNothingToCarryTheFailureSurfacesIt() {
        try (Semaphore failed = device.createSemaphore(0); Semaphore out = device.createSemaphore(0)) {
            failed.fail(new StatusException(StatusCode.DATA_LOSS, "upstream broke"));
            rejected(StatusCode.DATA_LOSS, () -> device.queueBarrier(ANY, SemaphoreList.of(failed, 1), NONE, 0),
                    "device.queueBarrier waits[0]", "upstream broke", "would be lost");
            device.queueBarrier(ANY, SemaphoreList.of(failed, 1), SemaphoreList.of(out, 1), 0); // carried: allowed
            assertEquals(StatusCode.DATA_LOSS, out.failure().code());
        }
    }

    @Test
    void semaphoresOfAnIncompatibleDeviceAreInvalidArgument() {
        ForwardingDevice tracing = new ForwardingDevice(localSync()) {
            @Override
            protected Semaphore wrapSemaphore(Semaphore inner) {
                return new ForwardingSemaphore(this, inner);
            }
        };
        try (tracing; Semaphore foreign = tracing.createSemaphore(0)) {
            rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueBarrier(ANY, NONE, SemaphoreList.of(foreign, 1), 0),
                    "device.queueBarrier signals[0]", "not compatible");
            rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueBarrier(ANY, SemaphoreList.of(foreign, 0), NONE, 0),
                    "device.queueBarrier waits[0]", "not compatible");
        }
    }

    @Test
    void semaphoresOfACompatibleDeviceAndHostSemaphoresAreAccepted() {
        try (ValidatingDevice other = new ValidatingDevice(SpyDevice.over(localSync()));
                Semaphore shared = other.createSemaphore(0); Semaphore host = new TimelineSemaphore("host", 0)) {
            device.queueBarrier(ANY, NONE, SemaphoreList.of(new Semaphore[] {shared, host}, new long[] {1, 1}), 0);
            assertEquals(1, shared.query());
            assertEquals(1, host.query());
        }
    }

    @Test
    void releasedSemaphoresAndNullListsAreRefused() {
        Semaphore s = device.createSemaphore(0);
        s.release();
        rejected(StatusCode.FAILED_PRECONDITION, () -> device.queueBarrier(ANY, NONE, SemaphoreList.of(s, 1), 0),
                "device.queueBarrier signals[0]", "after its last release");
        rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueBarrier(ANY, null, NONE, 0), "waits", "null");
        rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueBarrier(ANY, NONE, null, 0), "signals", "null");
    }

    @Test
    void queueTransfersAreCheckedLikeRecordedOnes() {
        try (Buffer a = allocate(16); Buffer b = allocate(16); Buffer readOnly = allocate(MemoryType.DEVICE_LOCAL,
                MemoryAccess.READ, BufferUsage.DEFAULT, 16)) {
            rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueFill(ANY, NONE, NONE, a, 0, 16, 0, 3, 0),
                    "device.queueFill patternLength", "3");
            rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueFill(ANY, NONE, NONE, a, 2, 8, 0, 4, 0),
                    "device.queueFill target", "offset 2");
            rejected(StatusCode.OUT_OF_RANGE, () -> device.queueFill(ANY, NONE, NONE, a, 8, 16, 0, 1, 0), "[8, 24)");
            rejected(StatusCode.PERMISSION_DENIED, () -> device.queueFill(ANY, NONE, NONE, readOnly, 0, 4, 0, 4, 0),
                    "access WRITE");
            rejected(StatusCode.OUT_OF_RANGE, () -> device.queueUpdate(ANY, NONE, NONE, i32(1, 2, 3), a, 8, 0),
                    "device.queueUpdate target", "touches 12 bytes", "holds 8");
            rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueCopy(ANY, NONE, NONE, a, 0, a, 4, 8, 0),
                    "device.queueCopy target", "overlaps");
            rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueCopy(ANY, NONE, NONE, a, 0, b, 8,
                    Buffer.WHOLE_BUFFER, 0), "device.queueCopy length", "16 bytes of the source but 8");
            rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueHostCall(ANY, NONE, NONE, (d, x, y) -> true,
                    new long[5], 0), "device.queueHostCall args", "5 arguments");
            assertArrayEquals(new int[4], readInts(a));
        }
    }

    @Test
    void queueDispatchesTakeDirectBindingsMatchingTheFunction() {
        try (ExecutableCache cache = device.createExecutableCache("t"); Executable exe = builtins(cache);
                Buffer out = allocate(8)) {
            int fill = exe.lookupFunction("fill_x32");
            rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueDispatch(ANY, NONE, NONE, exe, fill,
                    DispatchConfig.ofCount(1, 1, 1), i32(2, 1), new BufferRef[] {BufferRef.slot(0, 0, 8)}, 0),
                    "device.queueDispatch bindings[0]", "slot 0", "direct buffers only");
            rejected(StatusCode.OUT_OF_RANGE, () -> device.queueDispatch(ANY, NONE, NONE, exe, 1 << 20,
                    DispatchConfig.ofCount(1, 1, 1), i32(2, 1), new BufferRef[] {BufferRef.of(out)}, 0),
                    "device.queueDispatch function", "ordinal 1048576");
            rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueDispatch(ANY, NONE, NONE, exe, fill,
                    DispatchConfig.ofCount(1, 1, 1), i32(2), new BufferRef[] {BufferRef.of(out)}, 0), "takes 2");
        }
    }

    @Test
    void aDeferredHostCallKeepsItsSignalsUsableAfterTheCallerReleasedThem() throws Exception {
        Semaphore s = device.createSemaphore(0);
        AtomicReference<SemaphoreList> kept = new AtomicReference<>();
        AtomicReference<Device> seenDevice = new AtomicReference<>();
        device.queueHostCall(ANY, NONE, SemaphoreList.of(s, 1), (d, args, signals) -> {
            seenDevice.set(d);
            kept.set(signals);
            return false;
        }, null, 0);
        Semaphore observer = s;
        observer.retain();
        s.release(); // the queue holds what it will signal; so does the validation layer
        kept.get().signal();
        assertEquals(1, observer.query());
        assertEquals(device, seenDevice.get(), "host calls see the validating device");
        assertEquals(List.of(s), List.of(kept.get().semaphore(0)), "and the caller's own semaphores");
        observer.await(1, Timeout.immediate());
        observer.release();
    }
}
