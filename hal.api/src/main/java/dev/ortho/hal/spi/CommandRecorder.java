package dev.ortho.hal.spi;

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
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The recording half of a {@link CommandBuffer}, written once for every driver and wrapper: IREE's
 * command-buffer rules ({@code hal/command_buffer.c} and {@code command_buffer_validation.c}) for
 * the state machine (initial → recording → ended, recorded once), command categories, debug-group
 * depth, binding-table slots against the capacity, submission (ended, a one-shot buffer once) and
 * the retention of directly referenced resources; it produces an immutable {@link Recording}.
 *
 * <p>What stays with a driver: checks against its own objects (a direct buffer's range, an
 * executable's functions), run between {@link #require} and {@link #record}, and what it does
 * with the recording (compile it, serialise it, forward it).
 *
 * <p>Every failure is a {@link StatusException} with IREE's code and a message
 * "{@code commandBuffer.<call>: <owner>: <what is wrong, with the values>}":
 * FAILED_PRECONDITION for the state, categories, debug groups and repeated one-shot submissions;
 * OUT_OF_RANGE for a slot at or beyond the binding capacity and update data over
 * {@value #MAX_UPDATE_BYTES} bytes; INVALID_ARGUMENT for null operands and bad creation arguments.
 * A rejected call records nothing and retains nothing.
 *
 * <p>One thread records; {@link #state()}, {@link #recording()} and the submission methods may
 * be called from any thread once {@link #end()} returned.
 */
public final class CommandRecorder {
    /** IREE's {@code IREE_HAL_COMMAND_BUFFER_MAX_UPDATE_SIZE}: the most bytes one update may carry. */
    public static final int MAX_UPDATE_BYTES = 64 * 1024;
    /** Every command buffer mode bit IREE defines. */
    public static final int KNOWN_MODES = CommandBufferMode.ONE_SHOT | CommandBufferMode.ALLOW_INLINE_EXECUTION
            | CommandBufferMode.UNVALIDATED | CommandBufferMode.UNRETAINED | CommandBufferMode.RETAIN_PROFILE_METADATA
            | CommandBufferMode.RETAIN_DISPATCH_METADATA;

    /** Where a command buffer is in its life. */
    public enum State { INITIAL, RECORDING, ENDED }

    private final Object owner;
    private final int mode;
    private final int categories;
    private final int bindingCapacity;
    private final boolean retain;
    private final List<RecordedCommand> commands = new ArrayList<>();
    private final List<Resource> retained = new ArrayList<>();
    /** Set once by {@link #releaseRetained} (under the {@link #retained} monitor). */
    private boolean retainedReleased;
    private final AtomicBoolean submitted = new AtomicBoolean();
    private volatile State state = State.INITIAL; // volatile: recorded on one thread, submitted from others
    private volatile Recording recording; // published by end()
    private int debugDepth;
    private int bindingCount;
    /** The command {@link #checker} checks (recording thread only); the visitors allocate nothing per call. */
    private RecordedCommand checking;
    private final RecordedCommand.RefVisitor checker = (argument, index, ref) ->
            checkRef(checking.call(), argument, index, ref);
    private final RecordedCommand.RefVisitor committer = (argument, index, ref) -> {
        if (ref.isIndirect()) {
            bindingCount = Math.max(bindingCount, ref.bufferSlot() + 1);
        } else {
            keep(ref.buffer());
        }
    };

    /**
     * A recorder for a command buffer created with these (checked, {@link #checkCreate})
     * arguments.
     *
     * @param owner the command buffer, named in messages (its {@code toString} is called only on
     *     failure)
     * @param retainResources whether {@link #record} retains the buffers, executables and events a
     *     command references directly; ignored (false) when {@code mode} is
     *     {@link CommandBufferMode#UNRETAINED}. A wrapper whose inner command buffer retains
     *     passes false.
     */
    public CommandRecorder(Object owner, int mode, int categories, int bindingCapacity, boolean retainResources) {
        this.owner = owner;
        this.mode = mode;
        this.categories = categories;
        this.bindingCapacity = bindingCapacity;
        this.retain = retainResources && !CommandBufferMode.has(mode, CommandBufferMode.UNRETAINED);
    }

    /**
     * IREE's creation rules ({@code iree_hal_device_create_command_buffer}) plus Ortho's argument
     * checks, naming the argument: INVALID_ARGUMENT for unknown mode bits, categories that are not
     * a non-empty subset of TRANSFER|DISPATCH, a negative capacity, an ALLOW_INLINE_EXECUTION
     * buffer that is not ONE_SHOT or has a binding capacity; OUT_OF_RANGE for a capacity beyond
     * the slots a {@link BufferRef} can name.
     *
     * @param call the device call, for messages ({@code device.createCommandBuffer})
     */
    public static void checkCreate(String call, int mode, int categories, int bindingCapacity) {
        if ((mode & ~KNOWN_MODES) != 0) {
            throw argument(StatusCode.INVALID_ARGUMENT, call, "mode", "bits " + CommandBufferMode.format(mode)
                    + " include unknown bits " + CommandBufferMode.format(mode & ~KNOWN_MODES) + " (0x"
                    + Integer.toHexString(mode & ~KNOWN_MODES) + ")");
        }
        if (categories == 0 || (categories & ~CommandCategory.ANY) != 0) {
            throw argument(StatusCode.INVALID_ARGUMENT, call, "categories", CommandCategory.format(categories)
                    + " (0x" + Integer.toHexString(categories) + ") must be a non-empty subset of TRANSFER|DISPATCH");
        }
        if (bindingCapacity < 0) {
            throw argument(StatusCode.INVALID_ARGUMENT, call, "bindingCapacity", "capacity " + bindingCapacity
                    + " is negative");
        }
        if (bindingCapacity > BufferRef.MAX_SLOT + 1) {
            throw argument(StatusCode.OUT_OF_RANGE, call, "bindingCapacity", "capacity " + bindingCapacity
                    + " exceeds the " + (BufferRef.MAX_SLOT + 1) + " slots a buffer reference can name");
        }
        if (CommandBufferMode.has(mode, CommandBufferMode.ALLOW_INLINE_EXECUTION)) {
            if (!CommandBufferMode.has(mode, CommandBufferMode.ONE_SHOT)) {
                throw argument(StatusCode.INVALID_ARGUMENT, call, "mode", CommandBufferMode.format(mode)
                        + ": inline command buffers must be ONE_SHOT");
            }
            if (bindingCapacity > 0) {
                throw argument(StatusCode.INVALID_ARGUMENT, call, "bindingCapacity", bindingCapacity
                        + ": inline command buffers cannot have indirect bindings (capacity must be 0)");
            }
        }
    }

    private static StatusException argument(StatusCode code, String call, String argument, String detail) {
        return new StatusException(code, call + " " + argument + ": " + detail);
    }

    /** The {@link CommandBufferMode} bits the command buffer was created with. */
    public int mode() {
        return mode;
    }

    /** The {@link CommandCategory} bits commands may use. */
    public int categories() {
        return categories;
    }

    /** Binding-table slots the command buffer was created with. */
    public int bindingCapacity() {
        return bindingCapacity;
    }

    public State state() {
        return state;
    }

    /** Open debug groups. */
    public int debugDepth() {
        return debugDepth;
    }

    /** Slots used so far: one past the highest slot recorded (IREE's {@code binding_count}). */
    public int bindingCount() {
        return bindingCount;
    }

    /** Starts recording: FAILED_PRECONDITION if recording or ended (re-recording is not allowed). */
    public void begin() {
        State current = state;
        if (current == State.ENDED) {
            throw fail(StatusCode.FAILED_PRECONDITION, "begin",
                    "it was recorded already (begin..end); re-recording a command buffer is not allowed");
        }
        if (current == State.RECORDING) {
            throw fail(StatusCode.FAILED_PRECONDITION, "begin", "it is already recording");
        }
        state = State.RECORDING;
    }

    /**
     * Ends recording and returns the recording: FAILED_PRECONDITION if a debug group is open
     * (checked first, as IREE does) or it is not recording.
     */
    public Recording end() {
        if (debugDepth != 0) {
            throw fail(StatusCode.FAILED_PRECONDITION, "end", "debug group depth is " + debugDepth
                    + " (expected 0): close every beginDebugGroup with endDebugGroup");
        }
        requireState("end");
        // not copied: neither list changes once the state is ENDED (releaseRetained keeps its list)
        Recording done = Recording.of(mode, categories, bindingCapacity, bindingCount,
                Collections.unmodifiableList(commands), Collections.unmodifiableList(retained));
        recording = done;
        state = State.ENDED; // volatile write: publishes the recording to submitters
        return done;
    }

    /** The recording once ended: FAILED_PRECONDITION before. */
    public Recording recording() {
        Recording done = recording;
        if (done == null || state != State.ENDED) {
            throw fail(StatusCode.FAILED_PRECONDITION, "recording", "it is " + state + ", not ENDED");
        }
        return done;
    }

    /**
     * FAILED_PRECONDITION unless {@code call} may record a command of {@code category} (0 for
     * barriers and debug groups) now: the buffer is recording and allows the category.
     * {@code call} is the {@link CommandBuffer} method ({@code fillBuffer}) or already qualified
     * ({@code commandBuffer.fillBuffer}).
     */
    public void require(String call, int category) {
        if (state != State.RECORDING) {
            throw fail(StatusCode.FAILED_PRECONDITION, call, "it is " + state
                    + ", not RECORDING: record between begin and end");
        }
        if ((categories & category) != category) {
            throw fail(StatusCode.FAILED_PRECONDITION, call, "the command needs category "
                    + CommandCategory.format(category) + " but the command buffer allows only "
                    + CommandCategory.format(categories));
        }
    }

    private void requireState(String call) {
        require(call, 0);
    }

    /** Opens a debug group (recorded, so a forwarded recording keeps its labels); null labels are empty. */
    public void beginDebugGroup(String label) {
        requireState("beginDebugGroup");
        commands.add(new RecordedCommand.BeginDebugGroup(label == null ? "" : label));
        debugDepth++;
    }

    /** Closes a debug group: FAILED_PRECONDITION if none is open. */
    public void endDebugGroup() {
        requireState("endDebugGroup");
        if (debugDepth == 0) {
            throw fail(StatusCode.FAILED_PRECONDITION, "endDebugGroup", "no debug group is open (depth 0)");
        }
        commands.add(new RecordedCommand.EndDebugGroup());
        debugDepth--;
    }

    /**
     * OUT_OF_RANGE if {@code ref} is indirect and its slot is at or beyond the binding capacity
     * (IREE's rule); INVALID_ARGUMENT if it is null. Direct references pass.
     */
    public void checkRef(String call, String argument, BufferRef ref) {
        checkRef(call, argument, -1, ref);
    }

    private void checkRef(String call, String argument, int index, BufferRef ref) {
        if (ref == null) {
            throw argument(StatusCode.INVALID_ARGUMENT, qualified(call),
                    RecordedCommand.RefVisitor.name(argument, index), "is null");
        }
        if (ref.isIndirect() && ref.bufferSlot() >= bindingCapacity) {
            throw argument(StatusCode.OUT_OF_RANGE, qualified(call),
                    RecordedCommand.RefVisitor.name(argument, index), "binding table slot " + ref.bufferSlot()
                            + " is outside the binding capacity " + bindingCapacity + " of " + owner);
        }
    }

    /**
     * Records {@code command}: checks the state and category ({@link #require}), every buffer
     * reference ({@link #checkRef}), then retains what it references directly (unless retention is
     * off) and counts its slots. The driver's own argument checks run before this call.
     */
    public void record(RecordedCommand command) {
        require(command.call(), command.category());
        checking = command;
        command.forEachRef(checker);
        switch (command) { // every check before anything is retained
            case RecordedCommand.SignalEvent signal -> nonNull(command.call(), "event", signal.event());
            case RecordedCommand.ResetEvent reset -> nonNull(command.call(), "event", reset.event());
            case RecordedCommand.WaitEvents wait -> {
                for (int i = 0; i < wait.events().size(); i++) {
                    if (wait.events().get(i) == null) {
                        throw argument(StatusCode.INVALID_ARGUMENT, qualified(command.call()),
                                "events[" + i + "]", "is null");
                    }
                }
            }
            default -> { }
        }
        command.forEachRef(committer);
        switch (command) {
            case RecordedCommand.SignalEvent signal -> keep(signal.event());
            case RecordedCommand.ResetEvent reset -> keep(reset.event());
            case RecordedCommand.WaitEvents wait -> wait.events().forEach(this::keep);
            case RecordedCommand.Dispatch dispatch -> keep(dispatch.executable());
            default -> { }
        }
        commands.add(command);
    }

    private static <T> T nonNull(String call, String argument, T value) {
        if (value == null) {
            throw argument(StatusCode.INVALID_ARGUMENT, qualified(call), argument, "is null");
        }
        return value;
    }

    private void keep(Resource resource) {
        if (retain && resource != null) {
            resource.retain();
            retained.add(resource);
        }
    }

    // ---- typed conveniences: capture the operands and record ----

    /**
     * Checks the state ({@link #require}) and captures a barrier (null arrays are empty;
     * INVALID_ARGUMENT naming a null element); the driver checks its buffers, then records it.
     */
    public RecordedCommand.Barrier barrier(int sourceStages, int targetStages, int flags,
            MemoryBarrier[] memoryBarriers, BufferBarrier[] bufferBarriers) {
        require("executionBarrier", 0);
        return new RecordedCommand.Barrier(sourceStages, targetStages, flags,
                list("executionBarrier", "memoryBarriers", memoryBarriers),
                bufferBarriers("executionBarrier", bufferBarriers));
    }

    /**
     * Checks the state and category ({@link #require}: DISPATCH, as IREE) and captures an event
     * wait (INVALID_ARGUMENT for a null array or element); the driver checks the events and
     * buffers, then records it.
     */
    public RecordedCommand.WaitEvents waitEvents(Event[] events, int sourceStages, int targetStages,
            MemoryBarrier[] memoryBarriers, BufferBarrier[] bufferBarriers) {
        require("waitEvents", CommandCategory.DISPATCH);
        nonNull("waitEvents", "events", events);
        return new RecordedCommand.WaitEvents(list("waitEvents", "events", events), sourceStages, targetStages,
                list("waitEvents", "memoryBarriers", memoryBarriers), bufferBarriers("waitEvents", bufferBarriers));
    }

    /**
     * Captures an update: INVALID_ARGUMENT for null operands, OUT_OF_RANGE for more than
     * {@value #MAX_UPDATE_BYTES} bytes; the target's length becomes the data length when it was
     * {@code WHOLE_BUFFER}. The bytes are copied now.
     */
    public static RecordedCommand.Update update(MemorySegment source, BufferRef target, int flags) {
        nonNull("updateBuffer", "source", source);
        nonNull("updateBuffer", "target", target);
        if (source.byteSize() > MAX_UPDATE_BYTES) {
            throw argument(StatusCode.OUT_OF_RANGE, "commandBuffer.updateBuffer", "source", source.byteSize()
                    + " bytes exceed the update limit of " + MAX_UPDATE_BYTES + " bytes (64 KiB)");
        }
        BufferRef exact = target.length() == dev.ortho.hal.Buffer.WHOLE_BUFFER ? new BufferRef(target.bufferSlot(),
                target.buffer(), target.offset(), source.byteSize()) : target;
        return new RecordedCommand.Update(source.toArray(ValueLayout.JAVA_BYTE), exact, flags);
    }

    /**
     * Captures a dispatch: INVALID_ARGUMENT for a null executable or config, constants that are
     * not a multiple of 4 bytes, or a null binding (naming it). The constants are copied now.
     */
    public static RecordedCommand.Dispatch dispatch(Executable executable, int function, DispatchConfig config,
            MemorySegment constants, BufferRef[] bindings, long flags) {
        nonNull("dispatch", "executable", executable);
        nonNull("dispatch", "config", config);
        long constantBytes = constants == null ? 0 : constants.byteSize();
        if (constantBytes % 4 != 0) {
            throw argument(StatusCode.INVALID_ARGUMENT, "commandBuffer.dispatch", "constants", constantBytes
                    + " bytes are not a multiple of 4 (constants are 32-bit)");
        }
        byte[] captured = constantBytes == 0 ? new byte[0] : constants.toArray(ValueLayout.JAVA_BYTE);
        return new RecordedCommand.Dispatch(executable, function, config, captured,
                list("dispatch", "bindings", bindings), flags);
    }

    private static <T> List<T> list(String call, String argument, T[] values) {
        if (values == null || values.length == 0) {
            return List.of();
        }
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) { // the name is built only on failure: recording allocates no strings
                throw argument(StatusCode.INVALID_ARGUMENT, qualified(call), argument + "[" + i + "]",
                        "is null");
            }
        }
        return List.of(values);
    }

    private static List<BufferBarrier> bufferBarriers(String call, BufferBarrier[] barriers) {
        List<BufferBarrier> list = list(call, "bufferBarriers", barriers);
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i).buffer() == null) {
                throw argument(StatusCode.INVALID_ARGUMENT, qualified(call), "bufferBarriers[" + i + "]",
                        "buffer reference is null");
            }
        }
        return list;
    }

    // ---- submission ----

    /**
     * IREE's submission rules, changing nothing: FAILED_PRECONDITION if the buffer was never
     * recorded, is still recording, or is ONE_SHOT and was submitted already.
     *
     * @param call the device call, for messages ({@code device.queueExecute})
     */
    public Recording checkSubmission(String call) {
        State current = state;
        if (current == State.INITIAL) {
            throw submission(call, "it has not been recorded (call begin and end)");
        }
        if (current == State.RECORDING) {
            throw submission(call, "it is still recording (call end first)");
        }
        if (CommandBufferMode.has(mode, CommandBufferMode.ONE_SHOT) && submitted.get()) {
            throw submission(call, "it is ONE_SHOT and was submitted already");
        }
        return recording;
    }

    /**
     * {@link #checkSubmission} and, for a ONE_SHOT buffer, claims its one submission atomically
     * (of two racing submitters one fails). Returns the recording to run.
     */
    public Recording claimSubmission(String call) {
        Recording done = checkSubmission(call);
        if (!submitted.compareAndSet(false, true) && CommandBufferMode.has(mode, CommandBufferMode.ONE_SHOT)) {
            throw submission(call, "it is ONE_SHOT and was submitted already");
        }
        return done;
    }

    /** Undoes {@link #claimSubmission} when the device refused the submission after the claim. */
    public void unclaimSubmission() {
        submitted.set(false);
    }

    /** Whether {@link #claimSubmission} succeeded at least once. */
    public boolean wasSubmitted() {
        return submitted.get();
    }

    private StatusException submission(String call, String detail) {
        return new StatusException(StatusCode.FAILED_PRECONDITION, call + ": " + owner + ": " + detail);
    }

    /**
     * Releases every resource {@link #record} retained (the command buffer's last release);
     * idempotent.
     */
    public void releaseRetained() {
        synchronized (retained) {
            if (retainedReleased) {
                return;
            }
            retainedReleased = true;
        }
        for (int i = 0; i < retained.size(); i++) { // no copy: nothing is retained after the last release
            retained.get(i).release();
        }
    }

    /**
     * {@code commandBuffer.<call>}; a call already so named (a wrapper passes its own names)
     * stays as it is. Used on failure paths only.
     */
    private static String qualified(String call) {
        return call.startsWith("commandBuffer.") ? call : "commandBuffer." + call;
    }

    private StatusException fail(StatusCode code, String call, String detail) {
        return new StatusException(code, qualified(call) + ": " + owner + ": " + detail);
    }

    @Override
    public String toString() {
        return "recorder of " + owner + " (" + state + ", " + commands.size() + " commands, " + bindingCount
                + " slots used, debug depth " + debugDepth + ")";
    }
}
