package dev.ortho.hal.remote.internal.client;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.BufferBarrier;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBufferMode;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Event;
import dev.ortho.hal.Executable;
import dev.ortho.hal.MemoryBarrier;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.remote.internal.protocol.RecordingCodec;
import dev.ortho.hal.spi.CommandRecorder;
import dev.ortho.hal.spi.RecordedCommand;
import dev.ortho.hal.spi.Recording;
import dev.ortho.hal.spi.RecordingCommandBuffer;
import java.lang.foreign.MemorySegment;

/**
 * A command buffer of a remote device, recorded entirely on the client: the shared
 * {@link CommandRecorder} owns the recording rules (state, categories, debug groups, slots
 * against the binding capacity, retention, submission) and this class adds the checks against the
 * remote device's objects (each buffer, executable and event belongs to this device, direct
 * ranges fit, dispatch arguments match the function). Nothing is sent while recording: the
 * recording travels in one frame, encoded by {@link RecordingCodec} (the codec the server decodes
 * with), right before its first submission; later submissions of a reusable buffer send only its
 * handle.
 *
 * <p>Directly referenced buffers, executables and events are retained until the command buffer
 * is released (unless {@link CommandBufferMode#UNRETAINED}). Not thread-safe while recording.
 */
final class RemoteCommandBuffer extends RecordingCommandBuffer {
    private final RemoteDevice device;
    private final long handle;
    private boolean sent; // guarded by this

    RemoteCommandBuffer(RemoteDevice device, long handle, int mode, int categories, long queueAffinity,
            int bindingCapacity) {
        super(mode, categories, queueAffinity, bindingCapacity);
        this.device = device;
        this.handle = handle;
    }

    /** Recorded with its memory and buffer barriers; the served device decides how finely to order. */
    @Override
    public void executionBarrier(int sourceStages, int targetStages, int flags, MemoryBarrier[] memoryBarriers,
            BufferBarrier[] bufferBarriers) {
        RecordedCommand.Barrier barrier = recorder().barrier(sourceStages, targetStages, flags, memoryBarriers,
                bufferBarriers);
        checkBarriers("executionBarrier", barrier.bufferBarriers());
        recorder().record(barrier);
    }

    /** The buffer belongs to this device and a direct range fits ({@link RemoteDevice#checkRef}). */
    @Override
    protected long checkBufferRef(BufferRef ref, String what) {
        return device.checkRef(ref, what);
    }

    @Override
    public void signalEvent(Event event, int sourceStages) {
        recorder().require("signalEvent", CommandCategory.DISPATCH);
        recorder().record(new RecordedCommand.SignalEvent(event(event), sourceStages));
    }

    @Override
    public void resetEvent(Event event, int sourceStages) {
        recorder().require("resetEvent", CommandCategory.DISPATCH);
        recorder().record(new RecordedCommand.ResetEvent(event(event), sourceStages));
    }

    @Override
    public void waitEvents(Event[] events, int sourceStages, int targetStages, MemoryBarrier[] memoryBarriers,
            BufferBarrier[] bufferBarriers) {
        RecordedCommand.WaitEvents wait = recorder().waitEvents(events, sourceStages, targetStages,
                memoryBarriers, bufferBarriers);
        for (Event event : wait.events()) {
            event(event);
        }
        checkBarriers("waitEvents", wait.bufferBarriers());
        recorder().record(wait);
    }

    private RemoteEvent event(Event event) {
        if (!(event instanceof RemoteEvent remote) || remote.device() != device) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "event " + event + " was not created by " + device);
        }
        return remote;
    }

    @Override
    public void fillBuffer(BufferRef target, int pattern, int patternLength, int flags) {
        recorder().require("fillBuffer", CommandCategory.TRANSFER);
        Checks.notNull(target, "fillBuffer target");
        long length = device.checkRef(target, "fillBuffer target");
        if (length >= 0) {
            Checks.pattern("fillBuffer", target.offset(), length, patternLength);
        }
        recorder().record(new RecordedCommand.Fill(target, pattern, patternLength, flags));
    }

    @Override
    public void updateBuffer(MemorySegment source, BufferRef target, int flags) {
        recorder().require("updateBuffer", CommandCategory.TRANSFER);
        RecordedCommand.Update update = CommandRecorder.update(source, target, flags);
        device.checkRef(update.target(), "updateBuffer target");
        recorder().record(update);
    }

    @Override
    public void copyBuffer(BufferRef source, BufferRef target, int flags) {
        recorder().require("copyBuffer", CommandCategory.TRANSFER);
        Checks.notNull(source, "copyBuffer source");
        Checks.notNull(target, "copyBuffer target");
        long sourceLength = device.checkRef(source, "copyBuffer source");
        long targetLength = device.checkRef(target, "copyBuffer target");
        if (sourceLength >= 0 && targetLength >= 0) {
            Checks.disjoint(source.buffer(), source.offset(), target.buffer(), target.offset(),
                    Math.min(sourceLength, targetLength));
        }
        recorder().record(new RecordedCommand.Copy(source, target, flags));
    }

    @Override
    public void dispatch(Executable executable, int function, DispatchConfig config, MemorySegment constants,
            BufferRef[] bindings, long flags) {
        recorder().require("dispatch", CommandCategory.DISPATCH);
        RemoteExecutable remote = device.executable(executable, "dispatch");
        device.checkDispatch(remote, function, config, constants, bindings, device::checkRef, "dispatch");
        recorder().record(CommandRecorder.dispatch(remote, function, config, constants, bindings, flags));
    }

    long handle() {
        return handle;
    }

    /** Binding-table slots the recording uses (the table at submission must have at least this many). */
    int slotsUsed() {
        // the recorder's volatile state publishes the count of an ended recording to this thread
        return recorder().state() == CommandRecorder.State.ENDED ? recorder().recording().bindingCount()
                : recorder().bindingCount();
    }

    /**
     * Checks the buffer can be submitted now and returns the frame that creates it on the server
     * if it has not been sent yet (null otherwise). Synchronized with other submitters.
     */
    synchronized FrameWriter prepareSubmission(RemoteConnection connection) {
        Recording recording = recorder().claimSubmission("device.queueExecute");
        if (sent) {
            return null;
        }
        sent = true;
        return RecordingCodec.writeCommandBuffer(connection.request(Protocol.COMMAND_BUFFER, 256), handle,
                queueAffinity(), recording, RemoteDevice::handleOf);
    }

    /** Releases the server's command buffer if it was sent. */
    @Override
    protected void lastReleased() {
        boolean wasSent;
        synchronized (this) {
            wasSent = sent;
        }
        if (wasSent) {
            device.connection().sendQuietly(device.connection().request(Protocol.RELEASE).putI64(handle));
        }
    }

    @Override
    public String toString() {
        return "remote command buffer " + handle;
    }
}
