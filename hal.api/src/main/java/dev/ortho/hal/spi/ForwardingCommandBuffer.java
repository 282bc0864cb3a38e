package dev.ortho.hal.spi;

import dev.ortho.hal.BufferBarrier;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.Channel;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Event;
import dev.ortho.hal.Executable;
import dev.ortho.hal.MemoryBarrier;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A {@link CommandBuffer} forwarding to a command buffer of a wrapped device. Recording calls
 * translate their buffers, events, channels and executables with the owner's {@code unwrap} methods, so
 * the inner command buffer records inner objects only.
 *
 * <p>{@code retain}/{@code release} forward one to one. Threading as the inner command buffer:
 * one thread records; a finished buffer may be submitted from any thread.
 */
public class ForwardingCommandBuffer implements CommandBuffer {
    private final ForwardingDevice owner;
    private final CommandBuffer delegate;

    /** Forwards to {@code delegate}, taking over the caller's reference to it. */
    public ForwardingCommandBuffer(ForwardingDevice owner, CommandBuffer delegate) {
        this.owner = Objects.requireNonNull(owner, "owner");
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The device that handed this command buffer out. */
    public final ForwardingDevice owner() {
        return owner;
    }

    /** The wrapped command buffer. */
    public final CommandBuffer delegate() {
        return delegate;
    }

    @Override
    public int mode() {
        return delegate.mode();
    }

    @Override
    public int allowedCategories() {
        return delegate.allowedCategories();
    }

    @Override
    public long queueAffinity() {
        return delegate.queueAffinity();
    }

    @Override
    public int bindingCapacity() {
        return delegate.bindingCapacity();
    }

    @Override
    public void begin() {
        delegate.begin();
    }

    @Override
    public void end() {
        delegate.end();
    }

    @Override
    public void beginDebugGroup(String label) {
        delegate.beginDebugGroup(label);
    }

    @Override
    public void endDebugGroup() {
        delegate.endDebugGroup();
    }

    @Override
    public void executionBarrier(int sourceStages, int targetStages, int flags) {
        delegate.executionBarrier(sourceStages, targetStages, flags);
    }

    @Override
    public void executionBarrier(int sourceStages, int targetStages, int flags, MemoryBarrier[] memoryBarriers,
            BufferBarrier[] bufferBarriers) {
        delegate.executionBarrier(sourceStages, targetStages, flags, memoryBarriers, owner.unwrap(bufferBarriers));
    }

    @Override
    public void signalEvent(Event event, int sourceStages) {
        delegate.signalEvent(owner.unwrap(event), sourceStages);
    }

    @Override
    public void resetEvent(Event event, int sourceStages) {
        delegate.resetEvent(owner.unwrap(event), sourceStages);
    }

    @Override
    public void waitEvents(Event[] events, int sourceStages, int targetStages) {
        delegate.waitEvents(owner.unwrap(events), sourceStages, targetStages);
    }

    @Override
    public void waitEvents(Event[] events, int sourceStages, int targetStages, MemoryBarrier[] memoryBarriers,
            BufferBarrier[] bufferBarriers) {
        delegate.waitEvents(owner.unwrap(events), sourceStages, targetStages, memoryBarriers,
                owner.unwrap(bufferBarriers));
    }

    @Override
    public void adviseBuffer(BufferRef buffer, long flags, long arg0, long arg1) {
        delegate.adviseBuffer(owner.unwrap(buffer), flags, arg0, arg1);
    }

    @Override
    public void fillBuffer(BufferRef target, int pattern, int patternLength, int flags) {
        delegate.fillBuffer(owner.unwrap(target), pattern, patternLength, flags);
    }

    @Override
    public void updateBuffer(MemorySegment source, BufferRef target, int flags) {
        delegate.updateBuffer(source, owner.unwrap(target), flags);
    }

    @Override
    public void copyBuffer(BufferRef source, BufferRef target, int flags) {
        delegate.copyBuffer(owner.unwrap(source), owner.unwrap(target), flags);
    }

    @Override
    public void dispatch(Executable executable, int function, DispatchConfig config, MemorySegment constants,
            BufferRef[] bindings, long flags) {
        delegate.dispatch(owner.unwrap(executable), function, owner.unwrap(config), constants,
                owner.unwrap(bindings), flags);
    }

    @Override
    public void collective(Channel channel, int op, int param, BufferRef send, BufferRef recv, long elementCount) {
        delegate.collective(owner.unwrap(channel), op, param, owner.unwrap(send), owner.unwrap(recv), elementCount);
    }

    @Override
    public void retain() {
        delegate.retain();
    }

    @Override
    public void release() {
        delegate.release();
    }

    @Override
    public String toString() {
        return delegate.toString();
    }
}
