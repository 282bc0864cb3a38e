package dev.ortho.hal.cpu.internal.command;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.BufferBarrier;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandBufferMode;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Event;
import dev.ortho.hal.Executable;
import dev.ortho.hal.MemoryBarrier;
import dev.ortho.hal.Resource;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A command buffer of a CPU device: records a compact list of checked {@link Command}s. The
 * synchronous device executes them inline in order at submission; the asynchronous device runs
 * the {@link BlockProgram} built by {@link #end()}, in which execution barriers and events split
 * the commands into regions (commands of one region may run concurrently).
 *
 * <p>Checks at record time: the recording state, the command categories, binding slots against
 * the binding capacity, direct buffer ranges and the other argument checks of {@link Command}.
 * Buffers and executables referenced directly are retained until the last release unless the
 * mode is {@code UNRETAINED}. One thread records; a finished buffer may be submitted from any
 * thread.
 */
public final class LocalCommandBuffer implements CommandBuffer {
    private enum State { INITIAL, RECORDING, EXECUTABLE }

    private final int mode;
    private final int categories;
    private final long queueAffinity;
    private final int bindingCapacity;
    private final List<Command> commands = new ArrayList<>();
    /** Command indices where a barrier or event starts a new region. */
    private final List<Integer> barriers = new ArrayList<>();
    private volatile BlockProgram program; // built by end(); volatile: submitted from other threads
    private final BitSet usedSlots = new BitSet();
    private final List<Resource> retained = new ArrayList<>();
    private final AtomicInteger references = new AtomicInteger(1);
    private final AtomicBoolean submitted = new AtomicBoolean();
    private volatile State state = State.INITIAL; // volatile: recorded on one thread, submitted from another
    private int debugDepth;

    /** Every command buffer mode bit the CPU devices accept. */
    private static final int KNOWN_MODES = CommandBufferMode.ONE_SHOT | CommandBufferMode.ALLOW_INLINE_EXECUTION
            | CommandBufferMode.UNVALIDATED | CommandBufferMode.UNRETAINED | CommandBufferMode.RETAIN_PROFILE_METADATA
            | CommandBufferMode.RETAIN_DISPATCH_METADATA;

    /**
     * Checks a CPU device's {@code createCommandBuffer} arguments: INVALID_ARGUMENT naming the one
     * bad argument (unknown mode bits, categories not a non-empty subset of TRANSFER|DISPATCH, a
     * negative binding capacity).
     */
    public static void checkCreateArguments(int mode, int categories, int bindingCapacity) {
        if ((mode & ~KNOWN_MODES) != 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "command buffer mode "
                    + CommandBufferMode.format(mode) + " has unknown bits 0x" + Integer.toHexString(mode & ~KNOWN_MODES)
                    + " (known: " + CommandBufferMode.format(KNOWN_MODES) + ")");
        }
        if (categories == 0 || (categories & ~CommandCategory.ANY) != 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "command buffer categories 0x"
                    + Integer.toHexString(categories) + " must be a non-empty subset of TRANSFER|DISPATCH");
        }
        if (bindingCapacity < 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "command buffer binding capacity "
                    + bindingCapacity + " is negative");
        }
    }

    /** The caller has checked the arguments ({@link #checkCreateArguments}). */
    public LocalCommandBuffer(int mode, int categories, long queueAffinity, int bindingCapacity) {
        this.mode = mode;
        this.categories = categories;
        this.queueAffinity = queueAffinity;
        this.bindingCapacity = bindingCapacity;
    }

    @Override
    public int mode() {
        return mode;
    }

    @Override
    public int allowedCategories() {
        return categories;
    }

    @Override
    public long queueAffinity() {
        return queueAffinity;
    }

    @Override
    public int bindingCapacity() {
        return bindingCapacity;
    }

    @Override
    public void begin() {
        if (state != State.INITIAL) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "command buffer cannot begin: it is " + state);
        }
        state = State.RECORDING;
    }

    @Override
    public void end() {
        requireRecording("end");
        if (debugDepth != 0) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "command buffer ends with " + debugDepth
                    + " debug group(s) still open");
        }
        program = BlockProgram.of(commands, barriers, usedSlots,
                !CommandBufferMode.has(mode, CommandBufferMode.UNRETAINED));
        state = State.EXECUTABLE;
    }

    @Override
    public void beginDebugGroup(String label) {
        requireRecording("beginDebugGroup");
        debugDepth++;
    }

    @Override
    public void endDebugGroup() {
        requireRecording("endDebugGroup");
        if (debugDepth == 0) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "endDebugGroup without an open debug group");
        }
        debugDepth--;
    }

    @Override
    public void executionBarrier(int sourceStages, int targetStages, int flags) {
        requireRecording("executionBarrier");
        barriers.add(commands.size());
    }

    /** A fine-grained barrier splits regions like a full one (the block processor has no finer unit). */
    @Override
    public void executionBarrier(int sourceStages, int targetStages, int flags, MemoryBarrier[] memoryBarriers,
            BufferBarrier[] bufferBarriers) {
        requireRecording("executionBarrier");
        checkBarriers("executionBarrier", memoryBarriers, bufferBarriers);
        barriers.add(commands.size());
    }

    @Override
    public void waitEvents(Event[] events, int sourceStages, int targetStages, MemoryBarrier[] memoryBarriers,
            BufferBarrier[] bufferBarriers) {
        waitEvents(events, sourceStages, targetStages);
        checkBarriers("waitEvents", memoryBarriers, bufferBarriers);
    }

    private void checkBarriers(String what, MemoryBarrier[] memoryBarriers, BufferBarrier[] bufferBarriers) {
        if (memoryBarriers != null) {
            for (int i = 0; i < memoryBarriers.length; i++) {
                if (memoryBarriers[i] == null) {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " memory barrier " + i + " is null");
                }
            }
        }
        if (bufferBarriers != null) {
            for (int i = 0; i < bufferBarriers.length; i++) {
                String barrier = what + " buffer barrier " + i;
                if (bufferBarriers[i] == null) {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT, barrier + " is null");
                }
                long length = Command.checkReference(bufferBarriers[i].buffer(), barrier);
                if (length < 0) {
                    requireSlot(bufferBarriers[i].buffer().bufferSlot(), barrier);
                }
            }
        }
    }

    /** A hint only: validated (recording state, flags, the reference's range), nothing recorded. */
    @Override
    public void adviseBuffer(BufferRef buffer, long flags, long arg0, long arg1) {
        requireRecording("adviseBuffer");
        CommandBuffer.super.adviseBuffer(buffer, flags, arg0, arg1);
        if (Command.checkReference(buffer, "adviseBuffer") < 0) {
            requireSlot(buffer.bufferSlot(), "adviseBuffer");
        }
    }

    private void requireSlot(int slot, String what) {
        if (slot >= bindingCapacity) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, what + " uses binding table slot " + slot
                    + " but the command buffer's binding capacity is " + bindingCapacity);
        }
    }

    @Override
    public void signalEvent(Event event, int sourceStages) {
        requireRecording("signalEvent");
        requireEvent(event, "signalEvent");
        barriers.add(commands.size());
    }

    @Override
    public void resetEvent(Event event, int sourceStages) {
        requireRecording("resetEvent");
        requireEvent(event, "resetEvent");
        barriers.add(commands.size());
    }

    @Override
    public void waitEvents(Event[] events, int sourceStages, int targetStages) {
        requireRecording("waitEvents");
        if (events == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "waitEvents events array is null");
        }
        for (Event event : events) {
            requireEvent(event, "waitEvents");
        }
        barriers.add(commands.size());
    }

    @Override
    public void fillBuffer(BufferRef target, int pattern, int patternLength, int flags) {
        record(CommandCategory.TRANSFER, "fillBuffer", () -> Command.fill(target, pattern, patternLength));
    }

    @Override
    public void updateBuffer(MemorySegment source, BufferRef target, int flags) {
        record(CommandCategory.TRANSFER, "updateBuffer", () -> Command.update(source, target));
    }

    @Override
    public void copyBuffer(BufferRef source, BufferRef target, int flags) {
        record(CommandCategory.TRANSFER, "copyBuffer", () -> Command.copy(source, target));
    }

    @Override
    public void dispatch(Executable executable, int function, DispatchConfig config, MemorySegment constants,
            BufferRef[] bindings, long flags) {
        record(CommandCategory.DISPATCH, "dispatch",
                () -> Command.dispatch(executable, function, config, constants, bindings, flags));
        if (!CommandBufferMode.has(mode, CommandBufferMode.UNRETAINED)) {
            executable.retain();
            retained.add(executable);
        }
    }

    /**
     * The commands and the slots they use, for one submission.
     *
     * @throws StatusException FAILED_PRECONDITION if the buffer is not finished, or is one-shot
     *     and was submitted before
     */
    public List<Command> commandsForSubmission() {
        claimSubmission();
        return commands;
    }

    /**
     * The block program for one submission; same checks as {@link #commandsForSubmission()}.
     */
    public BlockProgram programForSubmission() {
        claimSubmission();
        return program;
    }

    private void claimSubmission() {
        if (state != State.EXECUTABLE) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "command buffer cannot be submitted: it is "
                    + state + " (call end() first)");
        }
        if (CommandBufferMode.has(mode, CommandBufferMode.ONE_SHOT) && !submitted.compareAndSet(false, true)) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                    "one-shot command buffer was already submitted once");
        }
    }

    /** The binding-table slots the recorded commands use. */
    public BitSet usedSlots() {
        return usedSlots;
    }

    private void record(int category, String what, Supplier<Command> checked) {
        requireRecording(what);
        if (!CommandCategory.has(categories, category)) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, what + " needs category "
                    + CommandCategory.format(category) + " but the command buffer allows "
                    + CommandCategory.format(categories));
        }
        Command command = checked.get();
        command.forEachSlot(slot -> {
            if (slot >= bindingCapacity) {
                throw new StatusException(StatusCode.OUT_OF_RANGE, what + " uses binding slot " + slot
                        + " but the binding capacity is " + bindingCapacity);
            }
        });
        command.forEachSlot(usedSlots::set);
        if (!CommandBufferMode.has(mode, CommandBufferMode.UNRETAINED)) {
            command.forEachDirectBuffer(buffer -> {
                buffer.retain();
                retained.add(buffer);
            });
        }
        commands.add(command);
    }

    private void requireRecording(String what) {
        if (state != State.RECORDING) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "command buffer " + what
                    + " needs the recording state but it is " + state);
        }
    }

    private static void requireEvent(Event event, String what) {
        if (event == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " event is null");
        }
    }

    @Override
    public void retain() {
        references.incrementAndGet();
    }

    @Override
    public void release() {
        int remaining = references.decrementAndGet();
        if (remaining > 0) {
            return;
        }
        if (remaining < 0) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "command buffer released more times than retained");
        }
        retained.forEach(Resource::release);
        retained.clear();
    }
}
