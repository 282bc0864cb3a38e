package dev.ortho.vm;

import dev.ortho.base.Deadline;
import dev.ortho.base.StatusException;
import java.util.Arrays;

/**
 * One activation on a {@link Stack} (IREE's {@code iree_vm_stack_frame_t} plus its storage).
 *
 * <p>Frames are pooled by depth and reused, so their storage (registers, the outgoing
 * {@link Call}) is allocated only when a deeper or larger frame than ever before is entered. The
 * owner of a frame is the module whose function entered it; only it touches the registers and
 * {@linkplain #state() state}. Register contents survive yields; on {@link Stack#leave} ref
 * registers are cleared without release (the function is responsible for releasing what it
 * holds, as in IREE), on error unwinding they are released.
 *
 * <p>Not thread-safe: a stack is driven by one thread at a time.
 */
public final class Frame {
    /** Bytes charged against the stack limit for the frame header. */
    static final int HEADER_BYTES = 64;

    final int depth;
    FrameType type;
    Function function;
    long pc;
    int[] i32 = new int[0];
    RefObject[] refs = new RefObject[0];
    int i32Count;
    int refCount;
    long chargedBytes;
    Call call;
    Call outgoing;
    Object state;
    Object scratch;
    FrameCleanup cleanup;
    // WAIT frames
    WaitType waitType;
    Deadline deadline;
    WaitSource[] waitSources = new WaitSource[0];
    int waitSourceCount;
    StatusException waitStatus;

    Frame(int depth) {
        this.depth = depth;
    }

    void init(FrameType type, Function function, int i32Registers, int refRegisters, Call call) {
        init(type, function, i32Registers, refRegisters, call, true);
    }

    /**
     * As {@link #init(FrameType, Function, int, int, Call)}; with {@code zeroI32} false the i32
     * registers keep what the frame's last activation left there, for an owner that zeroes them
     * itself when (and only if) it uses them ({@link NativeCall#locals()}).
     */
    void init(FrameType type, Function function, int i32Registers, int refRegisters, Call call, boolean zeroI32) {
        this.type = type;
        this.function = function;
        this.pc = 0;
        if (i32.length < i32Registers) {
            i32 = new int[i32Registers];
        } else if (zeroI32) {
            Arrays.fill(i32, 0, i32Registers, 0);
        }
        if (refs.length < refRegisters) {
            refs = new RefObject[refRegisters];
        }
        this.i32Count = i32Registers;
        this.refCount = refRegisters;
        this.call = call;
        this.state = null;
        this.cleanup = null;
        this.waitType = null;
        this.deadline = null;
        this.waitSourceCount = 0;
        this.waitStatus = null;
    }

    /** Called when a frame is cleaned up by {@link Stack#leave} or unwinding. */
    @FunctionalInterface
    public interface FrameCleanup {
        /** Releases what {@code frame} holds beyond its registers. */
        void cleanup(Frame frame);
    }

    /** The frame type. */
    public FrameType type() {
        return type;
    }

    /** The function executing in this frame (for WAIT frames, the function that waits); null for EXTERNAL. */
    public Function function() {
        return function;
    }

    /** Depth on the stack (0 = bottom). */
    public int depth() {
        return depth;
    }

    /** Program counter, printed in backtraces. */
    public long pc() {
        return pc;
    }

    /** Sets the program counter. */
    public void setPc(long pc) {
        this.pc = pc;
    }

    /** The i32 register bank (length ≥ the count requested on enter; i64 values use pairs). */
    public int[] i32Registers() {
        return i32;
    }

    /** The ref register bank (length ≥ the count requested on enter). */
    public RefObject[] refRegisters() {
        return refs;
    }

    /** The call this frame executes (arguments to read, results to write); null for WAIT/EXTERNAL. */
    public Call call() {
        return call;
    }

    /** A reusable call for calls made from this frame (created on first use). */
    public Call outgoing() {
        if (outgoing == null) {
            outgoing = new Call();
        }
        return outgoing;
    }

    /** Module-defined continuation data for this activation (cleared on enter). */
    public Object state() {
        return state;
    }

    /** Sets the continuation data. */
    public void setState(Object state) {
        this.state = state;
    }

    /**
     * Module-defined data cached on the pooled frame across activations (e.g. a reusable helper
     * object); any module may replace it, so check its type before use.
     */
    public Object scratch() {
        return scratch;
    }

    /** Sets the cached data. */
    public void setScratch(Object scratch) {
        this.scratch = scratch;
    }

    /** Sets the cleanup hook (use a non-capturing lambda or a constant to avoid allocation). */
    public void setCleanup(FrameCleanup cleanup) {
        this.cleanup = cleanup;
    }

    /** For WAIT frames: the wait type. */
    public WaitType waitType() {
        return waitType;
    }

    /** For WAIT frames: the deadline after which the wait fails with DEADLINE_EXCEEDED. */
    public Deadline deadline() {
        return deadline;
    }

    /** For WAIT frames: number of wait sources. */
    public int waitSourceCount() {
        return waitSourceCount;
    }

    /** For WAIT frames: wait source {@code i}. */
    public WaitSource waitSource(int i) {
        return waitSources[i];
    }

    /** For WAIT frames: records the wait's outcome (null = success); set by the scheduler. */
    public void setWaitStatus(StatusException status) {
        this.waitStatus = status;
    }

    @Override
    public String toString() {
        return "[" + depth + "] " + type.label() + " " + (function == null ? "" : function.qualifiedName()) + ":" + pc;
    }
}
