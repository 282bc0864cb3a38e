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
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * A command buffer of a CPU device. The shared {@link CommandRecorder} owns the recording rules
 * (state, categories, debug groups, binding slots against the capacity, retention, submission);
 * this class adds the CPU checks of {@link Command} (direct buffer ranges, pattern sizes, the
 * dispatch's function, constants and bindings) and compiles each recorded command to its
 * execution form at once. The synchronous device executes the {@link Command}s inline in order
 * at submission; the asynchronous device runs the {@link BlockProgram} built by {@link #end()},
 * in which execution barriers and events split the commands into regions (commands of one region
 * may run concurrently).
 *
 * <p>Buffers, executables and events referenced directly are retained until the last release
 * unless the mode is {@code UNRETAINED}. One thread records; a finished buffer may be submitted
 * from any thread.
 */
public final class LocalCommandBuffer extends RecordingCommandBuffer {
    private final List<Command> commands = new ArrayList<>();
    /** Command indices where a barrier or event starts a new region. */
    private final List<Integer> barriers = new ArrayList<>();
    private volatile BlockProgram program; // built by end(); volatile: submitted from other threads
    private final BitSet usedSlots = new BitSet();

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

    @Override
    public void end() {
        BlockProgram built = BlockProgram.of(commands, barriers, usedSlots,
                !CommandBufferMode.has(mode(), CommandBufferMode.UNRETAINED));
        program = built; // before the recorder's state: a submitter that sees ENDED sees the program
        super.end(); // the recorder checks the state and debug groups
    }

    /** A fine-grained barrier splits regions like a full one (the block processor has no finer unit). */
    @Override
    public void executionBarrier(int sourceStages, int targetStages, int flags, MemoryBarrier[] memoryBarriers,
            BufferBarrier[] bufferBarriers) {
        RecordedCommand.Barrier barrier = recorder().barrier(sourceStages, targetStages, flags, memoryBarriers,
                bufferBarriers);
        checkBarriers("commandBuffer", barrier.bufferBarriers());
        recorder().record(barrier);
        barriers.add(commands.size());
    }

    /** A direct reference's range ({@link Command#checkReference}). */
    @Override
    protected long checkBufferRef(BufferRef ref, String what) {
        return Command.checkReference(ref, what);
    }

    @Override
    public void signalEvent(Event event, int sourceStages) {
        recorder().record(new RecordedCommand.SignalEvent(event, sourceStages));
        barriers.add(commands.size());
    }

    @Override
    public void resetEvent(Event event, int sourceStages) {
        recorder().record(new RecordedCommand.ResetEvent(event, sourceStages));
        barriers.add(commands.size());
    }

    @Override
    public void waitEvents(Event[] events, int sourceStages, int targetStages, MemoryBarrier[] memoryBarriers,
            BufferBarrier[] bufferBarriers) {
        RecordedCommand.WaitEvents wait = recorder().waitEvents(events, sourceStages, targetStages,
                memoryBarriers, bufferBarriers);
        checkBarriers("commandBuffer", wait.bufferBarriers());
        recorder().record(wait);
        barriers.add(commands.size());
    }

    @Override
    public void fillBuffer(BufferRef target, int pattern, int patternLength, int flags) {
        recorder().require("fillBuffer", CommandCategory.TRANSFER);
        Command local = Command.fill(target, pattern, patternLength);
        add(new RecordedCommand.Fill(target, pattern, patternLength, flags), local);
    }

    @Override
    public void updateBuffer(MemorySegment source, BufferRef target, int flags) {
        recorder().require("updateBuffer", CommandCategory.TRANSFER);
        Command.Update local = Command.update(source, target);
        add(new RecordedCommand.Update(local.data(), local.target(), flags), local);
    }

    @Override
    public void copyBuffer(BufferRef source, BufferRef target, int flags) {
        recorder().require("copyBuffer", CommandCategory.TRANSFER);
        Command local = Command.copy(source, target);
        add(new RecordedCommand.Copy(source, target, flags), local);
    }

    @Override
    public void dispatch(Executable executable, int function, DispatchConfig config, MemorySegment constants,
            BufferRef[] bindings, long flags) {
        recorder().require("dispatch", CommandCategory.DISPATCH);
        Command local = Command.dispatch(executable, function, config, constants, bindings, flags);
        add(CommandRecorder.dispatch(executable, function, config, constants, bindings, flags), local);
    }

    /** Records the checked command (slots, retention) and keeps its execution form. */
    private void add(RecordedCommand recorded, Command local) {
        recorder().record(recorded);
        local.forEachSlot(usedSlots::set);
        commands.add(local);
    }

    /**
     * The block program for one submission.
     *
     * @throws StatusException FAILED_PRECONDITION if the buffer is not finished, or is one-shot
     *     and was submitted before
     */
    public BlockProgram programForSubmission() {
        recorder().claimSubmission("device.queueExecute");
        return program;
    }

    /** What was recorded, once ended (FAILED_PRECONDITION before). */
    public Recording recording() {
        return recorder().recording();
    }

    /** The binding-table slots the recorded commands use. */
    public BitSet usedSlots() {
        return usedSlots;
    }

    @Override
    public String toString() {
        return "local command buffer (" + CommandBufferMode.format(mode()) + ", "
                + CommandCategory.format(allowedCategories()) + ", capacity " + bindingCapacity() + ")";
    }
}
