package dev.ortho.vm;

import static dev.ortho.base.MessageText.printable;

import dev.ortho.base.Deadline;
import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.util.Arrays;
import java.util.Objects;

/**
 * The frames of one invocation (IREE's {@code iree_vm_stack_t}): a fiber that can be suspended
 * (yield) and resumed on another thread. Frames are pooled by depth, so entering and leaving in
 * steady state allocates nothing.
 *
 * <p>Size: each frame is charged a header plus 4 bytes per i32 and 8 per ref register; growing past
 * {@link #MAX_SIZE_BYTES} (IREE's 1 MiB) fails with RESOURCE_EXHAUSTED.
 *
 * <p>Not thread-safe: one thread drives a stack at a time (a resumed invocation may move threads,
 * with a happens-before edge provided by whoever schedules the resumption).
 */
public final class Stack {
    /** Maximum total frame storage, as IREE's {@code IREE_VM_STACK_MAX_SIZE}. */
    public static final int MAX_SIZE_BYTES = 1024 * 1024;

    private final Context context;
    private Frame[] frames = new Frame[8];
    private int size;
    private long usedBytes;

    /** Creates an empty stack whose functions run against {@code context}'s module states. */
    public Stack(Context context) {
        this.context = Objects.requireNonNull(context, "context");
    }

    /** The context whose module states this stack uses. */
    public Context context() {
        return context;
    }

    /**
     * The state of {@code module} in this stack's context.
     *
     * @throws StatusException NOT_FOUND if the module is not registered there
     */
    public Object moduleState(Module module) {
        return context.moduleState(module);
    }

    /** Number of frames. */
    public int depth() {
        return size;
    }

    /** Bytes of frame storage in use (counted against {@link #MAX_SIZE_BYTES}). */
    public long usedBytes() {
        return usedBytes;
    }

    /** The top frame, or null if empty. */
    public Frame top() {
        return size == 0 ? null : frames[size - 1];
    }

    /** Frame at {@code depth} (0 = bottom). @throws StatusException OUT_OF_RANGE */
    public Frame frame(int depth) {
        if (depth < 0 || depth >= size) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "frame " + depth + " out of range [0, " + size + ")");
        }
        return frames[depth];
    }

    /**
     * Pushes a frame executing {@code function} for {@code call} with the given register counts.
     *
     * @throws StatusException RESOURCE_EXHAUSTED if the stack would exceed {@link #MAX_SIZE_BYTES},
     *     INVALID_ARGUMENT for negative register counts
     */
    public Frame enter(FrameType type, Function function, int i32Registers, int refRegisters, Call call) {
        return enter(type, function, i32Registers, refRegisters, call, true);
    }

    /**
     * As {@link #enter(FrameType, Function, int, int, Call)}; with {@code zeroI32} false the i32
     * registers are not zeroed (see {@link Frame#init(FrameType, Function, int, int, Call, boolean)}).
     */
    Frame enter(FrameType type, Function function, int i32Registers, int refRegisters, Call call, boolean zeroI32) {
        if (i32Registers < 0 || refRegisters < 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "negative register counts " + i32Registers + "/" + refRegisters);
        }
        long bytes = Frame.HEADER_BYTES + 4L * i32Registers + 8L * refRegisters;
        if (usedBytes + bytes > MAX_SIZE_BYTES) {
            throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, "new stack size would exceed maximum size: "
                    + (usedBytes + bytes) + " > " + MAX_SIZE_BYTES);
        }
        if (size == frames.length) {
            frames = Arrays.copyOf(frames, size * 2);
        }
        Frame frame = frames[size];
        if (frame == null) {
            frame = new Frame(size);
            frames[size] = frame;
        }
        frame.init(type, function, i32Registers, refRegisters, call, zeroI32);
        frame.chargedBytes = bytes;
        usedBytes += bytes;
        size++;
        return frame;
    }

    /**
     * Pops {@code frame}, which must be the top: runs its cleanup hook and clears (without
     * releasing) its ref registers.
     *
     * @throws StatusException FAILED_PRECONDITION "unbalanced stack leave" otherwise
     */
    public void leave(Frame frame) {
        if (size == 0 || frames[size - 1] != frame) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "unbalanced stack leave");
        }
        pop(false);
    }

    private void pop(boolean release) {
        Frame frame = frames[--size];
        usedBytes -= frame.chargedBytes;
        FrameType type = frame.type;
        if (frame.cleanup != null) {
            Frame.FrameCleanup c = frame.cleanup;
            frame.cleanup = null;
            c.cleanup(frame);
        }
        for (int i = 0; i < frame.refCount; i++) {
            RefObject r = frame.refs[i];
            frame.refs[i] = null;
            if (release) {
                RefObject.release(r);
            }
        }
        if (release && frame.outgoing != null && type != FrameType.WAIT) {
            frame.outgoing.results().releaseRefs();
        }
        if (frame.waitSourceCount > 0) {
            Arrays.fill(frame.waitSources, 0, frame.waitSourceCount, null);
        }
        frame.call = null;
        frame.state = null;
        frame.function = null;
    }

    /**
     * Pushes a WAIT frame above the top frame (whose function is waiting). The function then
     * returns DEFERRED; the scheduler performs the wait, records its status in the frame and
     * resumes the waiting module, which calls {@link #leaveWait()}.
     *
     * @throws StatusException FAILED_PRECONDITION if the stack is empty, INVALID_ARGUMENT if
     *     UNTIL is given sources or ANY/ALL none
     */
    public Frame enterWait(WaitType type, Deadline deadline, WaitSource... sources) {
        Frame waiter = top();
        if (waiter == null) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "wait entered on an empty stack");
        }
        if ((type == WaitType.UNTIL) != (sources.length == 0)) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    type + " wait with " + sources.length + " wait sources");
        }
        Frame frame = enter(FrameType.WAIT, waiter.function, 0, 0, null);
        frame.waitType = type;
        frame.deadline = Objects.requireNonNull(deadline, "deadline");
        if (frame.waitSources.length < sources.length) {
            frame.waitSources = new WaitSource[sources.length];
        }
        System.arraycopy(sources, 0, frame.waitSources, 0, sources.length);
        frame.waitSourceCount = sources.length;
        return frame;
    }

    /**
     * Pops the WAIT frame on top and returns its outcome: null on success, else the failure
     * (e.g. DEADLINE_EXCEEDED), which the waiting function may return or handle.
     *
     * @throws StatusException FAILED_PRECONDITION "unbalanced wait leave" if the top is not a WAIT frame
     */
    public StatusException leaveWait() {
        Frame frame = top();
        if (frame == null || frame.type != FrameType.WAIT) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "unbalanced wait leave");
        }
        StatusException status = frame.waitStatus;
        pop(false);
        return status;
    }

    /**
     * Pops every frame, releasing ref registers and pending outgoing results (error unwinding).
     */
    public void unwind() {
        while (size > 0) {
            pop(true);
        }
    }

    /** Frames a backtrace prints from the top (nearest the failure) before eliding the middle. */
    public static final int BACKTRACE_TOP_FRAMES = 32;
    /** Frames a backtrace prints from the bottom (the entry point) after eliding the middle. */
    public static final int BACKTRACE_BOTTOM_FRAMES = 16;

    /**
     * Formats the frames top-down as IREE does: one line per frame,
     * {@code [depth] type module.function:pc location} (location {@code -} if unknown). A deep
     * stack (a runaway recursion has thousands of frames) prints its top
     * {@link #BACKTRACE_TOP_FRAMES} and bottom {@link #BACKTRACE_BOTTOM_FRAMES} frames with one
     * line for the middle: {@code [..] ... 12,400 frames elided ...}.
     */
    public String formatBacktrace() {
        StringBuilder b = new StringBuilder();
        boolean elide = size > BACKTRACE_TOP_FRAMES + BACKTRACE_BOTTOM_FRAMES + 1;
        for (int i = size - 1; i >= 0; i--) {
            if (elide && i == size - 1 - BACKTRACE_TOP_FRAMES) {
                int elided = size - BACKTRACE_TOP_FRAMES - BACKTRACE_BOTTOM_FRAMES;
                b.append(String.format(java.util.Locale.ROOT, "%n[..] ... %,d frames elided ...", elided));
                i = BACKTRACE_BOTTOM_FRAMES;
                continue;
            }
            Frame f = frames[i];
            b.append(String.format("%n[%2d] %8s ", f.depth, f.type.label()));
            if (f.function == null) {
                continue;
            }
            Module m = f.function.module();
            b.append(printable(m.name())).append('.').append(printable(f.function.name()))
                    .append(':').append(f.pc).append(' ');
            String location = m.sourceLocation(f.function, f.pc);
            b.append(location == null ? "-" : printable(location));
        }
        return b.toString();
    }
}
