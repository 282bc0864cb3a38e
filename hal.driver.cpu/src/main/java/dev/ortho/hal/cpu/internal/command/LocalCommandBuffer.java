package dev.ortho.hal.cpu.internal.command;

import dev.ortho.base.StatusException;
import dev.ortho.hal.BufferBarrier;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBufferMode;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Event;
import dev.ortho.hal.Executable;
import dev.ortho.hal.MemoryBarrier;
import dev.ortho.hal.spi.CommandRecorder;
import dev.ortho.hal.spi.RecordedCommand;
import dev.ortho.hal.spi.Recording;
import dev.ortho.hal.spi.RecordingCommandBuffer;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A command buffer of a CPU device. The shared {@link CommandRecorder} owns the recording rules
 * (state, categories, debug groups, binding slots against the capacity, retention, submission)
 * and keeps the commands; this class adds the CPU checks of {@link LocalCommands} (direct buffer
 * ranges, pattern sizes, the dispatch's function, constants and bindings) before each command is
 * recorded. Each command is kept once, as the {@link RecordedCommand} in the recorder's
 * {@link Recording}; the devices run that recording as a {@link BlockProgram} (built at the first
 * submission, not copied), in which execution barriers and events split the commands into
 * regions (commands of one region may run concurrently).
 *
 * <p>Buffers, executables and events referenced directly are retained until the last release
 * unless the mode is {@code UNRETAINED}. One thread records; a finished buffer may be submitted
 * from any thread.
 */
public final class LocalCommandBuffer extends RecordingCommandBuffer {
    private static final VarHandle PROGRAM;

    static {
        try {
            PROGRAM = MethodHandles.lookup().findVarHandle(LocalCommandBuffer.class, "program", BlockProgram.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Built from the recording at the first submission; one program per buffer (its dispatch cache). */
    @SuppressWarnings("unused") // through PROGRAM
    private volatile BlockProgram program;

    /**
     * Checks a CPU device's {@code createCommandBuffer} arguments ({@link CommandRecorder#checkCreate}):
     * INVALID_ARGUMENT naming the one bad argument.
     */
    public static void checkCreateArguments(int mode, int categories, int bindingCapacity) {
        CommandRecorder.checkCreate("device.createCommandBuffer", mode, categories, bindingCapacity);
    }

    /** The caller has checked the arguments ({@link #checkCreateArguments}). */
    public LocalCommandBuffer(int mode, int categories, long queueAffinity, int bindingCapacity) {
        super(mode, categories, queueAffinity, bindingCapacity);
    }

    /** A fine-grained barrier splits regions like a full one (the block processor has no finer unit). */
    @Override
    public void executionBarrier(int sourceStages, int targetStages, int flags, MemoryBarrier[] memoryBarriers,
            BufferBarrier[] bufferBarriers) {
        RecordedCommand.Barrier barrier = recorder().barrier(sourceStages, targetStages, flags, memoryBarriers,
                bufferBarriers);
        checkBarriers("commandBuffer", barrier.bufferBarriers());
        recorder().record(barrier);
    }

    /** A direct reference's range ({@link LocalCommands#checkReference}). */
    @Override
    protected long checkBufferRef(BufferRef ref, String what) {
        return LocalCommands.checkReference(ref, what);
    }

    @Override
    public void signalEvent(Event event, int sourceStages) {
        recorder().record(new RecordedCommand.SignalEvent(event, sourceStages));
    }

    @Override
    public void resetEvent(Event event, int sourceStages) {
        recorder().record(new RecordedCommand.ResetEvent(event, sourceStages));
    }

    @Override
    public void waitEvents(Event[] events, int sourceStages, int targetStages, MemoryBarrier[] memoryBarriers,
            BufferBarrier[] bufferBarriers) {
        RecordedCommand.WaitEvents wait = recorder().waitEvents(events, sourceStages, targetStages,
                memoryBarriers, bufferBarriers);
        checkBarriers("commandBuffer", wait.bufferBarriers());
        recorder().record(wait);
    }

    @Override
    public void fillBuffer(BufferRef target, int pattern, int patternLength, int flags) {
        recorder().require("fillBuffer", CommandCategory.TRANSFER);
        recorder().record(LocalCommands.fill(target, pattern, patternLength, flags));
    }

    @Override
    public void updateBuffer(MemorySegment source, BufferRef target, int flags) {
        recorder().require("updateBuffer", CommandCategory.TRANSFER);
        recorder().record(LocalCommands.update(source, target, flags));
    }

    @Override
    public void copyBuffer(BufferRef source, BufferRef target, int flags) {
        recorder().require("copyBuffer", CommandCategory.TRANSFER);
        recorder().record(LocalCommands.copy(source, target, flags));
    }

    @Override
    public void dispatch(Executable executable, int function, DispatchConfig config, MemorySegment constants,
            BufferRef[] bindings, long flags) {
        recorder().require("dispatch", CommandCategory.DISPATCH);
        recorder().record(LocalCommands.dispatch(executable, function, config, constants, bindings, flags));
    }

    /**
     * The block program for one submission (built from the recording by the first one).
     *
     * @throws StatusException FAILED_PRECONDITION if the buffer is not finished, or is one-shot
     *     and was submitted before
     */
    public BlockProgram programForSubmission() {
        Recording recording = recorder().claimSubmission("device.queueExecute");
        BlockProgram built = (BlockProgram) PROGRAM.getAcquire(this);
        if (built == null) {
            built = BlockProgram.of(recording, !CommandBufferMode.has(mode(), CommandBufferMode.UNRETAINED));
            if (!PROGRAM.compareAndSet(this, null, built)) {
                built = (BlockProgram) PROGRAM.getAcquire(this); // a racing submitter built it first
            }
        }
        return built;
    }

    /** What was recorded, once ended (FAILED_PRECONDITION before). */
    public Recording recording() {
        return recorder().recording();
    }

    @Override
    public String toString() {
        return "local command buffer (" + CommandBufferMode.format(mode()) + ", "
                + CommandCategory.format(allowedCategories()) + ", capacity " + bindingCapacity() + ")";
    }
}
