package dev.ortho.hal.spi;

import static dev.ortho.hal.spi.FakeResources.references;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferBarrier;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBufferMode;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Event;
import dev.ortho.hal.MemoryBarrier;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** IREE's command-buffer rules as {@link CommandRecorder} applies them. */
class CommandRecorderTest {
    private static final int ANY = CommandCategory.ANY;

    private static StatusException rejected(StatusCode code, Executable call, String... fragments) {
        StatusException e = assertThrows(StatusException.class, call);
        assertEquals(code, e.code(), e.getMessage());
        for (String fragment : fragments) {
            assertTrue(e.getMessage().contains(fragment), "'" + fragment + "' missing from: " + e.getMessage());
        }
        return e;
    }

    private static CommandRecorder recording(int mode, int categories, int capacity) {
        CommandRecorder recorder = new CommandRecorder("cb", mode, categories, capacity, true);
        recorder.begin();
        return recorder;
    }

    private static RecordedCommand.Fill fill(BufferRef target) {
        return new RecordedCommand.Fill(target, 0, 4, 0);
    }

    @Test
    void theStateMachineIsInitialRecordingEndedAndRecordsOnce() {
        CommandRecorder recorder = new CommandRecorder("cb 1", 0, ANY, 0, true);
        assertEquals(CommandRecorder.State.INITIAL, recorder.state());
        rejected(StatusCode.FAILED_PRECONDITION, () -> recorder.record(fill(BufferRef.slot(0, 0, 4))),
                "commandBuffer.fillBuffer", "cb 1", "INITIAL");
        rejected(StatusCode.FAILED_PRECONDITION, recorder::end, "commandBuffer.end", "INITIAL");
        recorder.begin();
        rejected(StatusCode.FAILED_PRECONDITION, recorder::begin, "commandBuffer.begin", "already recording");
        recorder.end();
        assertEquals(CommandRecorder.State.ENDED, recorder.state());
        rejected(StatusCode.FAILED_PRECONDITION, recorder::begin, "re-recording");
        rejected(StatusCode.FAILED_PRECONDITION, recorder::end, "ENDED");
        rejected(StatusCode.FAILED_PRECONDITION, () -> recorder.require("executionBarrier", 0), "ENDED");
    }

    @Test
    void debugGroupsMustBalanceAndTheDepthIsCheckedBeforeTheState() {
        CommandRecorder recorder = recording(0, ANY, 0);
        rejected(StatusCode.FAILED_PRECONDITION, recorder::endDebugGroup, "commandBuffer.endDebugGroup", "depth 0");
        recorder.beginDebugGroup("outer");
        recorder.beginDebugGroup(null);
        assertEquals(2, recorder.debugDepth());
        rejected(StatusCode.FAILED_PRECONDITION, recorder::end, "commandBuffer.end", "depth is 2");
        recorder.endDebugGroup();
        recorder.endDebugGroup();
        Recording done = recorder.end();
        assertEquals(List.of(new RecordedCommand.BeginDebugGroup("outer"), new RecordedCommand.BeginDebugGroup(""),
                new RecordedCommand.EndDebugGroup(), new RecordedCommand.EndDebugGroup()), done.commands());
    }

    @Test
    void categoriesFollowIree() {
        Buffer a = FakeResources.buffer("a", 16);
        Event event = FakeResources.event("e");
        CommandRecorder transfer = recording(0, CommandCategory.TRANSFER, 0);
        CommandRecorder dispatch = recording(0, CommandCategory.DISPATCH, 0);
        rejected(StatusCode.FAILED_PRECONDITION, () -> dispatch.record(fill(BufferRef.of(a))),
                "commandBuffer.fillBuffer", "category TRANSFER", "allows only DISPATCH");
        rejected(StatusCode.FAILED_PRECONDITION, () -> dispatch.record(new RecordedCommand.Advise(BufferRef.of(a), 0,
                0, 0)), "commandBuffer.adviseBuffer", "TRANSFER");
        // IREE validates events as dispatch-category commands
        rejected(StatusCode.FAILED_PRECONDITION, () -> transfer.record(new RecordedCommand.SignalEvent(event, 0)),
                "commandBuffer.signalEvent", "category DISPATCH", "allows only TRANSFER");
        rejected(StatusCode.FAILED_PRECONDITION, () -> transfer.record(transfer.waitEvents(new Event[] {event},
                0, 0, null, null)), "commandBuffer.waitEvents", "DISPATCH");
        // barriers and debug groups are allowed in every command buffer
        transfer.record(transfer.barrier(0, 0, 0, null, null));
        dispatch.record(dispatch.barrier(0, 0, 0, null, null));
        dispatch.record(new RecordedCommand.ResetEvent(event, 0));
        assertEquals(2, references(event), "retained once, by the recorded reset only");
    }

    @Test
    void slotsAtOrBeyondTheCapacityAreOutOfRangeAndUsedSlotsAreCounted() {
        CommandRecorder recorder = recording(0, ANY, 3);
        rejected(StatusCode.OUT_OF_RANGE, () -> recorder.record(fill(BufferRef.slot(3, 0, 4))),
                "commandBuffer.fillBuffer target", "slot 3", "capacity 3");
        rejected(StatusCode.OUT_OF_RANGE, () -> recorder.record(recorder.barrier(0, 0, 0, null,
                new BufferBarrier[] {new BufferBarrier(0, 0, BufferRef.slot(7, 0, 4))})),
                "commandBuffer.executionBarrier bufferBarriers[0]", "slot 7");
        assertEquals(0, recorder.bindingCount(), "rejected commands use no slot");
        recorder.record(fill(BufferRef.slot(1, 0, 4)));
        recorder.record(new RecordedCommand.Copy(BufferRef.slot(0, 0, 4), BufferRef.slot(2, 0, 4), 0));
        assertEquals(3, recorder.bindingCount());
        assertEquals(3, recorder.end().bindingCount());
    }

    @Test
    void nullOperandsAreInvalidArgumentNamingTheArgument() {
        CommandRecorder recorder = recording(0, ANY, 1);
        rejected(StatusCode.INVALID_ARGUMENT, () -> recorder.record(fill(null)), "commandBuffer.fillBuffer target",
                "is null");
        rejected(StatusCode.INVALID_ARGUMENT, () -> recorder.record(new RecordedCommand.SignalEvent(null, 0)),
                "commandBuffer.signalEvent event");
        rejected(StatusCode.INVALID_ARGUMENT, () -> recorder.waitEvents(new Event[] {null}, 0, 0, null, null),
                "events[0]");
        rejected(StatusCode.INVALID_ARGUMENT, () -> recorder.barrier(0, 0, 0, new MemoryBarrier[] {null}, null),
                "memoryBarriers[0]");
        rejected(StatusCode.INVALID_ARGUMENT, () -> CommandRecorder.dispatch(FakeResources.executable("x"), 0,
                DispatchConfig.ofCount(1, 1, 1), MemorySegment.ofArray(new byte[6]), null, 0), "constants", "6 bytes");
    }

    @Test
    void updatesOver64KiBAreOutOfRangeAndWholeBufferTargetsTakeTheDataLength() {
        rejected(StatusCode.OUT_OF_RANGE, () -> CommandRecorder.update(MemorySegment.ofArray(new byte[65_537]),
                BufferRef.slot(0, 0, Buffer.WHOLE_BUFFER), 0), "commandBuffer.updateBuffer source", "65537 bytes");
        byte[] data = {1, 2, 3, 4};
        RecordedCommand.Update update = CommandRecorder.update(MemorySegment.ofArray(data),
                BufferRef.slot(0, 8, Buffer.WHOLE_BUFFER), 0);
        data[0] = 9;
        assertEquals(4, update.target().length());
        assertEquals(1, update.data()[0], "the data was captured at the call");
    }

    @Test
    void directResourcesAreRetainedUntilReleasedUnlessUnretained() {
        Buffer a = FakeResources.buffer("a", 16);
        Buffer b = FakeResources.buffer("b", 16);
        Event event = FakeResources.event("e");
        dev.ortho.hal.Executable exe = FakeResources.executable("x");
        CommandRecorder recorder = recording(0, ANY, 1);
        recorder.record(new RecordedCommand.Copy(BufferRef.of(a), BufferRef.of(b), 0));
        recorder.record(recorder.waitEvents(new Event[] {event}, 0, 0, null, null));
        recorder.record(CommandRecorder.dispatch(exe, 0, DispatchConfig.ofCount(1, 1, 1), null,
                new BufferRef[] {BufferRef.of(a), BufferRef.slot(0, 0, 4)}, 0));
        rejected(StatusCode.OUT_OF_RANGE, () -> recorder.record(new RecordedCommand.Copy(BufferRef.of(b),
                BufferRef.slot(1, 0, 4), 0)));
        assertEquals(3, references(a));
        assertEquals(2, references(b), "the rejected copy retained nothing");
        assertEquals(2, references(event));
        assertEquals(2, references(exe));
        Recording done = recorder.end();
        assertEquals(5, done.retained().size());
        recorder.releaseRetained();
        recorder.releaseRetained();
        assertEquals(1, references(a));
        assertEquals(1, references(b));
        assertEquals(1, references(event));
        assertEquals(1, references(exe));

        CommandRecorder unretained = recording(CommandBufferMode.UNRETAINED, ANY, 0);
        unretained.record(fill(BufferRef.of(a)));
        assertEquals(1, references(a));
        CommandRecorder wrapper = new CommandRecorder("w", 0, ANY, 0, false);
        wrapper.begin();
        wrapper.record(fill(BufferRef.of(a)));
        assertEquals(1, references(a));
    }

    @Test
    void submissionNeedsAnEndedBufferAndAOneShotOneRunsOnce() {
        CommandRecorder once = new CommandRecorder("once", CommandBufferMode.ONE_SHOT, ANY, 0, true);
        rejected(StatusCode.FAILED_PRECONDITION, () -> once.claimSubmission("device.queueExecute"),
                "device.queueExecute", "once", "has not been recorded");
        once.begin();
        rejected(StatusCode.FAILED_PRECONDITION, () -> once.checkSubmission("device.queueExecute"), "still recording");
        Recording done = once.end();
        assertEquals(done, once.claimSubmission("device.queueExecute"));
        rejected(StatusCode.FAILED_PRECONDITION, () -> once.claimSubmission("device.queueExecute"),
                "ONE_SHOT", "submitted already");
        once.unclaimSubmission();
        once.claimSubmission("device.queueExecute");

        CommandRecorder reusable = recording(0, ANY, 0);
        reusable.end();
        for (int i = 0; i < 3; i++) {
            reusable.claimSubmission("device.queueExecute");
        }
        assertTrue(reusable.wasSubmitted());
    }

    @Test
    void creationFollowsIreeAndNamesTheArgument() {
        String call = "device.createCommandBuffer";
        rejected(StatusCode.INVALID_ARGUMENT, () -> CommandRecorder.checkCreate(call, 1 << 30, ANY, 0), "mode",
                "unknown bits");
        rejected(StatusCode.INVALID_ARGUMENT, () -> CommandRecorder.checkCreate(call, 0, 0, 0), "categories");
        rejected(StatusCode.INVALID_ARGUMENT, () -> CommandRecorder.checkCreate(call, 0, 0x10, 0), "categories");
        rejected(StatusCode.INVALID_ARGUMENT, () -> CommandRecorder.checkCreate(call, 0, ANY, -2), "capacity -2");
        rejected(StatusCode.OUT_OF_RANGE, () -> CommandRecorder.checkCreate(call, 0, ANY, BufferRef.MAX_SLOT + 2),
                "bindingCapacity");
        rejected(StatusCode.INVALID_ARGUMENT, () -> CommandRecorder.checkCreate(call,
                CommandBufferMode.ALLOW_INLINE_EXECUTION, ANY, 0), "must be ONE_SHOT");
        rejected(StatusCode.INVALID_ARGUMENT, () -> CommandRecorder.checkCreate(call,
                CommandBufferMode.ALLOW_INLINE_EXECUTION | CommandBufferMode.ONE_SHOT, ANY, 1), "indirect bindings");
        CommandRecorder.checkCreate(call, CommandBufferMode.ALLOW_INLINE_EXECUTION | CommandBufferMode.ONE_SHOT,
                CommandCategory.TRANSFER, 0);
        CommandRecorder.checkCreate(call, CommandBufferMode.UNRETAINED, ANY, BufferRef.MAX_SLOT + 1);
    }

    @Test
    void recordingsAreImmutableAndCompareByValue() {
        Buffer a = FakeResources.buffer("a", 16);
        Recording first = twoCommands(a);
        Recording second = twoCommands(a);
        assertEquals(first, second);
        assertEquals(first.hashCode(), second.hashCode());
        assertThrows(UnsupportedOperationException.class, () -> first.commands().add(new RecordedCommand.EndDebugGroup()));
        CommandRecorder other = recording(0, ANY, 2);
        other.record(fill(BufferRef.of(a)));
        assertNotEquals(first, other.end());
    }

    private static Recording twoCommands(Buffer a) {
        CommandRecorder recorder = recording(0, ANY, 2);
        recorder.record(fill(BufferRef.of(a)));
        recorder.record(CommandRecorder.update(MemorySegment.ofArray(new byte[] {1, 2, 3, 4}), BufferRef.slot(1, 0, 4),
                0));
        return recorder.end();
    }
}
