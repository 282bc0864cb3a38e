package dev.ortho.hal.spi;

import dev.ortho.hal.BufferBarrier;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Event;
import dev.ortho.hal.MemoryBarrier;
import java.util.List;

/**
 * The base of a driver's own command buffer that records through a {@link CommandRecorder}: it
 * owns the recorder (which retains directly referenced resources unless the mode is
 * {@code UNRETAINED}), the queue affinity and the reference count, and implements what every such
 * command buffer forwards to the recorder unchanged: the creation arguments, {@link #begin},
 * {@link #end}, debug groups, the barrier-less overloads, {@link #adviseBuffer} (checked, recorded,
 * never executed), {@link #retain} and {@link #release}. A subclass adds its checks against its
 * own objects ({@link #checkBufferRef} and its commands), records the commands
 * ({@link #recorder()}), and frees what it holds itself in {@link #lastReleased()}.
 *
 * <p>Not for wrappers: a wrapper forwards to an inner command buffer ({@link ForwardingCommandBuffer}).
 * One thread records; a finished buffer may be submitted from any thread.
 */
public abstract class RecordingCommandBuffer implements CommandBuffer {
    private final long queueAffinity;
    private final CommandRecorder recorder;
    private final RefCount references = new RefCount();

    /**
     * A command buffer created with these arguments, which the device has checked
     * ({@link CommandRecorder#checkCreate}).
     */
    protected RecordingCommandBuffer(int mode, int categories, long queueAffinity, int bindingCapacity) {
        this.queueAffinity = queueAffinity;
        this.recorder = new CommandRecorder(this, mode, categories, bindingCapacity, true);
    }

    /** The recorder: the state, the rules and what was recorded. */
    protected final CommandRecorder recorder() {
        return recorder;
    }

    @Override
    public final int mode() {
        return recorder.mode();
    }

    @Override
    public final int allowedCategories() {
        return recorder.categories();
    }

    @Override
    public final long queueAffinity() {
        return queueAffinity;
    }

    @Override
    public final int bindingCapacity() {
        return recorder.bindingCapacity();
    }

    @Override
    public final void begin() {
        recorder.begin();
    }

    /** Ends the recording ({@link CommandRecorder#end}); a subclass that overrides calls this last. */
    @Override
    public void end() {
        recorder.end();
    }

    @Override
    public final void beginDebugGroup(String label) {
        recorder.beginDebugGroup(label);
    }

    @Override
    public final void endDebugGroup() {
        recorder.endDebugGroup();
    }

    /** The five-argument form without memory or buffer barriers. */
    @Override
    public final void executionBarrier(int sourceStages, int targetStages, int flags) {
        executionBarrier(sourceStages, targetStages, flags, null, null);
    }

    /** The five-argument form without memory or buffer barriers. */
    @Override
    public final void waitEvents(Event[] events, int sourceStages, int targetStages) {
        waitEvents(events, sourceStages, targetStages, null, null);
    }

    @Override
    public abstract void executionBarrier(int sourceStages, int targetStages, int flags,
            MemoryBarrier[] memoryBarriers, BufferBarrier[] bufferBarriers);

    @Override
    public abstract void waitEvents(Event[] events, int sourceStages, int targetStages,
            MemoryBarrier[] memoryBarriers, BufferBarrier[] bufferBarriers);

    /**
     * A hint, checked and recorded (the recording carries the advice IREE's API gives), never
     * executed: the recording state and TRANSFER category, the flags ({@link CommandBuffer}'s
     * default), then the reference ({@link #checkBufferRef}).
     */
    @Override
    public void adviseBuffer(BufferRef buffer, long flags, long arg0, long arg1) {
        recorder.require("adviseBuffer", CommandCategory.TRANSFER);
        CommandBuffer.super.adviseBuffer(buffer, flags, arg0, arg1);
        checkBufferRef(buffer, "adviseBuffer");
        recorder.record(new RecordedCommand.Advise(buffer, flags, arg0, arg1));
    }

    /**
     * Checks a buffer reference against this driver's objects (a direct buffer belongs to the
     * device and the range fits); INVALID_ARGUMENT or OUT_OF_RANGE naming {@code what}.
     *
     * @return the resolved length of a direct reference, -1 for an indirect one
     */
    protected abstract long checkBufferRef(BufferRef ref, String what);

    /** {@link #checkBufferRef} for each barrier's buffer, named "{@code <what> buffer barrier <i>}". */
    protected final void checkBarriers(String what, List<BufferBarrier> bufferBarriers) {
        for (int i = 0; i < bufferBarriers.size(); i++) {
            checkBufferRef(bufferBarriers.get(i).buffer(), what + " buffer barrier " + i);
        }
    }

    @Override
    public final void retain() {
        references.retain();
    }

    /**
     * Drops a reference; the last one calls {@link #lastReleased()}, then releases what the
     * recorder retained. Releasing more often than retaining fails as {@link RefCount#release}
     * says.
     */
    @Override
    public final void release() {
        if (references.release(this)) {
            lastReleased();
            recorder.releaseRetained();
        }
    }

    /** What the subclass frees at the last release, before the recorded resources are released; nothing by default. */
    protected void lastReleased() {
    }
}
