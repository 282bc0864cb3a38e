package dev.ortho.hal.remote.internal.client;

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
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A command buffer of a remote device, recorded entirely on the client: each command is checked
 * (state, categories, ranges, slots against the binding capacity, dispatch arguments) and encoded
 * at once; nothing is sent while recording. The whole recording travels in one frame right
 * before its first submission, and later submissions of a reusable buffer send only its handle.
 *
 * <p>Directly referenced buffers, executables and events are retained until the command buffer
 * is released (unless {@link CommandBufferMode#UNRETAINED}). Not thread-safe while recording.
 */
final class RemoteCommandBuffer implements CommandBuffer {
    /** IREE's limit on inline update data. */
    static final int MAX_UPDATE_BYTES = 64 * 1024;

    private enum State { INITIAL, RECORDING, EXECUTABLE }

    private final RemoteDevice device;
    private final long handle;
    private final int mode;
    private final int categories;
    private final long queueAffinity;
    private final int bindingCapacity;
    private final FrameWriter commands = FrameWriter.unframed(256);
    private final List<Resource> retained = new ArrayList<>();
    private final AtomicInteger references = new AtomicInteger(1);
    private State state = State.INITIAL;
    private int commandCount;
    private int debugDepth;
    private int slotsUsed;
    private boolean sent;
    private boolean submittedOnce;

    RemoteCommandBuffer(RemoteDevice device, long handle, int mode, int categories, long queueAffinity,
            int bindingCapacity) {
        this.device = device;
        this.handle = handle;
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
            throw new StatusException(StatusCode.FAILED_PRECONDITION, this + " cannot begin: it is " + state);
        }
        state = State.RECORDING;
    }

    @Override
    public void end() {
        recording("end");
        if (debugDepth != 0) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, this + " cannot end with " + debugDepth
                    + " debug group(s) open");
        }
        state = State.EXECUTABLE;
    }

    private void recording(String what) {
        if (state != State.RECORDING) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, what + " on " + this + " which is " + state
                    + ", not recording");
        }
    }

    private void category(String what, int category) {
        recording(what);
        if ((categories & category) == 0) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, what + " needs category "
                    + CommandCategory.format(category) + " but " + this + " allows "
                    + CommandCategory.format(categories));
        }
    }

    private FrameWriter command(int kind) {
        commandCount++;
        return commands.putU8(kind);
    }

    @Override
    public void beginDebugGroup(String label) {
        recording("beginDebugGroup");
        debugDepth++;
        command(Protocol.CMD_BEGIN_DEBUG_GROUP).putString(label == null ? "" : label);
    }

    @Override
    public void endDebugGroup() {
        recording("endDebugGroup");
        if (debugDepth == 0) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "endDebugGroup on " + this
                    + " with no debug group open");
        }
        debugDepth--;
        command(Protocol.CMD_END_DEBUG_GROUP);
    }

    @Override
    public void executionBarrier(int sourceStages, int targetStages, int flags) {
        executionBarrier(sourceStages, targetStages, flags, null, null);
    }

    /** Recorded with its memory and buffer barriers; the served device decides how finely to order. */
    @Override
    public void executionBarrier(int sourceStages, int targetStages, int flags, MemoryBarrier[] memoryBarriers,
            BufferBarrier[] bufferBarriers) {
        recording("executionBarrier");
        FrameWriter barriers = barriers("executionBarrier", memoryBarriers, bufferBarriers);
        command(Protocol.CMD_BARRIER).putI32(sourceStages).putI32(targetStages).putI32(flags).putAll(barriers);
    }

    /** Checks and encodes memory and buffer barriers (null arrays are empty). */
    private FrameWriter barriers(String what, MemoryBarrier[] memoryBarriers, BufferBarrier[] bufferBarriers) {
        int memoryCount = memoryBarriers == null ? 0 : memoryBarriers.length;
        int bufferCount = bufferBarriers == null ? 0 : bufferBarriers.length;
        FrameWriter out = FrameWriter.unframed(8 + 8 * memoryCount + 40 * bufferCount).putI32(memoryCount);
        for (int i = 0; i < memoryCount; i++) {
            MemoryBarrier barrier = memoryBarriers[i];
            Checks.notNull(barrier, what + " memory barrier " + i);
            out.putI32(barrier.sourceScope()).putI32(barrier.targetScope());
        }
        out.putI32(bufferCount);
        for (int i = 0; i < bufferCount; i++) {
            BufferBarrier barrier = bufferBarriers[i];
            String name = what + " buffer barrier " + i;
            Checks.notNull(barrier, name);
            Checks.notNull(barrier.buffer(), name + " buffer reference");
            out.putI32(barrier.sourceScope()).putI32(barrier.targetScope());
            ref(out, barrier.buffer(), name);
        }
        return out;
    }

    /**
     * A hint: checked (recording state, reference, flags) and forwarded, so the served device sees
     * the advice IREE's API gives it.
     */
    @Override
    public void adviseBuffer(BufferRef buffer, long flags, long arg0, long arg1) {
        recording("adviseBuffer");
        CommandBuffer.super.adviseBuffer(buffer, flags, arg0, arg1);
        FrameWriter refs = FrameWriter.unframed(32);
        ref(refs, buffer, "adviseBuffer");
        command(Protocol.CMD_ADVISE).putAll(refs).putI64(flags).putI64(arg0).putI64(arg1);
    }

    @Override
    public void signalEvent(Event event, int sourceStages) {
        recording("signalEvent");
        command(Protocol.CMD_SIGNAL_EVENT).putI64(event(event).handle()).putI32(sourceStages);
    }

    @Override
    public void resetEvent(Event event, int sourceStages) {
        recording("resetEvent");
        command(Protocol.CMD_RESET_EVENT).putI64(event(event).handle()).putI32(sourceStages);
    }

    @Override
    public void waitEvents(Event[] events, int sourceStages, int targetStages) {
        waitEvents(events, sourceStages, targetStages, null, null);
    }

    @Override
    public void waitEvents(Event[] events, int sourceStages, int targetStages, MemoryBarrier[] memoryBarriers,
            BufferBarrier[] bufferBarriers) {
        recording("waitEvents");
        Checks.notNull(events, "waitEvents events");
        FrameWriter barriers = barriers("waitEvents", memoryBarriers, bufferBarriers);
        long[] handles = new long[events.length];
        for (int i = 0; i < events.length; i++) {
            handles[i] = event(events[i]).handle();
        }
        FrameWriter out = command(Protocol.CMD_WAIT_EVENTS).putI32(handles.length);
        for (long h : handles) {
            out.putI64(h);
        }
        out.putI32(sourceStages).putI32(targetStages).putAll(barriers);
    }

    private RemoteEvent event(Event event) {
        if (!(event instanceof RemoteEvent remote) || remote.device() != device) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "event " + event + " was not created by " + device);
        }
        keep(remote);
        return remote;
    }

    @Override
    public void fillBuffer(BufferRef target, int pattern, int patternLength, int flags) {
        category("fillBuffer", CommandCategory.TRANSFER);
        Checks.notNull(target, "fillBuffer target");
        FrameWriter refs = FrameWriter.unframed(32);
        long length = ref(refs, target, "fillBuffer target");
        if (length >= 0) {
            Checks.pattern("fillBuffer", target.offset(), length, patternLength);
        }
        command(Protocol.CMD_FILL).putAll(refs).putI32(pattern).putI32(patternLength).putI32(flags);
    }

    @Override
    public void updateBuffer(MemorySegment source, BufferRef target, int flags) {
        category("updateBuffer", CommandCategory.TRANSFER);
        Checks.notNull(source, "updateBuffer source");
        Checks.notNull(target, "updateBuffer target");
        if (source.byteSize() > MAX_UPDATE_BYTES) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "updateBuffer of " + source.byteSize()
                    + " bytes exceeds the " + MAX_UPDATE_BYTES + "-byte limit");
        }
        FrameWriter refs = FrameWriter.unframed(32);
        ref(refs, new BufferRef(target.bufferSlot(), target.buffer(), target.offset(),
                target.length() == -1 ? source.byteSize() : target.length()), "updateBuffer target");
        command(Protocol.CMD_UPDATE).putBytes(source, 0, (int) source.byteSize()).putAll(refs).putI32(flags);
    }

    @Override
    public void copyBuffer(BufferRef source, BufferRef target, int flags) {
        category("copyBuffer", CommandCategory.TRANSFER);
        Checks.notNull(source, "copyBuffer source");
        Checks.notNull(target, "copyBuffer target");
        FrameWriter refs = FrameWriter.unframed(64);
        long sourceLength = ref(refs, source, "copyBuffer source");
        long targetLength = ref(refs, target, "copyBuffer target");
        if (sourceLength >= 0 && targetLength >= 0) {
            Checks.disjoint(source.buffer(), source.offset(), target.buffer(), target.offset(),
                    Math.min(sourceLength, targetLength));
        }
        command(Protocol.CMD_COPY).putAll(refs).putI32(flags);
    }

    @Override
    public void dispatch(Executable executable, int function, DispatchConfig config, MemorySegment constants,
            BufferRef[] bindings, long flags) {
        category("dispatch", CommandCategory.DISPATCH);
        RemoteExecutable remote = device.executable(executable, "dispatch");
        keep(remote);
        FrameWriter body = FrameWriter.unframed(64);
        device.encodeDispatch(body, remote, function, config, constants, bindings, this::slotRef, "dispatch");
        command(Protocol.CMD_DISPATCH).putAll(body).putI64(flags);
    }

    /** Encodes a reference; slots are checked against the capacity. Returns the direct length or -1. */
    private long ref(FrameWriter out, BufferRef ref, String what) {
        return slotRef(out, ref, what);
    }

    private long slotRef(FrameWriter out, BufferRef ref, String what) {
        if (ref != null && ref.isIndirect()) {
            if (ref.bufferSlot() >= bindingCapacity) {
                throw new StatusException(StatusCode.OUT_OF_RANGE, what + " binding slot " + ref.bufferSlot()
                        + " is outside the command buffer's binding capacity " + bindingCapacity);
            }
            slotsUsed = Math.max(slotsUsed, ref.bufferSlot() + 1);
        } else if (ref != null && !CommandBufferMode.has(mode, CommandBufferMode.UNRETAINED)) {
            keep(device.buffer(ref.buffer(), what));
        }
        return device.encodeRef(out, ref, what);
    }

    private void keep(Resource resource) {
        resource.retain();
        retained.add(resource);
    }

    long handle() {
        return handle;
    }

    /** Binding-table slots the recording uses (the table at submission must have at least this many). */
    int slotsUsed() {
        return slotsUsed;
    }

    /**
     * Checks the buffer can be submitted now and returns the frame that creates it on the server
     * if it has not been sent yet (null otherwise). Synchronized with other submitters.
     */
    synchronized FrameWriter prepareSubmission(RemoteConnection connection) {
        if (state != State.EXECUTABLE) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, this + " is " + state
                    + "; only an ended command buffer can be submitted");
        }
        if (CommandBufferMode.has(mode, CommandBufferMode.ONE_SHOT) && submittedOnce) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "one-shot " + this + " was already submitted");
        }
        submittedOnce = true;
        if (sent) {
            return null;
        }
        sent = true;
        return connection.request(Protocol.COMMAND_BUFFER, commands.size() + 64).putI64(handle).putI32(mode)
                .putI32(categories).putI64(queueAffinity).putI32(bindingCapacity).putI32(commandCount)
                .putAll(commands);
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
            throw new StatusException(StatusCode.FAILED_PRECONDITION, this + " released more times than retained");
        }
        if (sent) {
            device.connection().sendQuietly(device.connection().request(Protocol.RELEASE).putI64(handle));
        }
        for (Resource resource : retained) {
            resource.release();
        }
        retained.clear();
    }

    @Override
    public String toString() {
        return "remote command buffer " + handle;
    }
}
