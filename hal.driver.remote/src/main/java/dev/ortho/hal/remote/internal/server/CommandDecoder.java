package dev.ortho.hal.remote.internal.server;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.BufferBarrier;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.Device;
import dev.ortho.hal.Event;
import dev.ortho.hal.Executable;
import dev.ortho.hal.MemoryBarrier;
import dev.ortho.hal.Resource;
import dev.ortho.hal.remote.internal.protocol.FrameReader;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Replays a command buffer recorded by a client into a command buffer of the served device.
 * The device's command buffer retains what it references; a recording error leaves the handle
 * poisoned, so submitting it fails with that error.
 */
final class CommandDecoder {
    private CommandDecoder() {}

    static void record(FrameReader in, HandleTable handles, Device device) {
        long handle = in.i64("handle");
        int mode = in.i32("mode");
        int categories = in.i32("categories");
        long affinity = in.i64("affinity");
        int capacity = in.i32("binding capacity");
        int count = in.count("commands");
        CommandBuffer commandBuffer = null;
        try {
            handles.checkNew(handle);
            commandBuffer = device.createCommandBuffer(mode, categories, affinity, capacity);
            commandBuffer.begin();
            List<Resource> used = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                command(in, handles, commandBuffer, used);
            }
            in.end();
            commandBuffer.end();
            handles.put(handle, commandBuffer, 0);
        } catch (StatusException e) {
            if (commandBuffer != null) {
                commandBuffer.release();
            }
            if (!in.isMalformed() && e.code() != StatusCode.ALREADY_EXISTS) {
                handles.poison(handle, e);
            }
            throw e;
        }
    }

    private static void command(FrameReader in, HandleTable handles, CommandBuffer cb, List<Resource> used) {
        int kind = in.u8("command kind");
        switch (kind) {
            case Protocol.CMD_BEGIN_DEBUG_GROUP -> cb.beginDebugGroup(in.string("label"));
            case Protocol.CMD_END_DEBUG_GROUP -> cb.endDebugGroup();
            case Protocol.CMD_BARRIER -> {
                int source = in.i32("source stages");
                int target = in.i32("target stages");
                int flags = in.i32("flags");
                MemoryBarrier[] memory = memoryBarriers(in);
                cb.executionBarrier(source, target, flags, memory, bufferBarriers(in, handles, used));
            }
            case Protocol.CMD_SIGNAL_EVENT -> cb.signalEvent(handles.get(in.i64("event"), Event.class, "event"),
                    in.i32("stages"));
            case Protocol.CMD_RESET_EVENT -> cb.resetEvent(handles.get(in.i64("event"), Event.class, "event"),
                    in.i32("stages"));
            case Protocol.CMD_WAIT_EVENTS -> {
                int n = in.count("events");
                Event[] events = new Event[n];
                for (int i = 0; i < n; i++) {
                    events[i] = handles.get(in.i64("event"), Event.class, "event");
                }
                int source = in.i32("source stages");
                int target = in.i32("target stages");
                MemoryBarrier[] memory = memoryBarriers(in);
                cb.waitEvents(events, source, target, memory, bufferBarriers(in, handles, used));
            }
            case Protocol.CMD_ADVISE -> cb.adviseBuffer(QueueDecoder.ref(in, handles, used), in.i64("flags"),
                    in.i64("arg0"), in.i64("arg1"));
            case Protocol.CMD_FILL -> cb.fillBuffer(QueueDecoder.ref(in, handles, used), in.i32("pattern"),
                    in.i32("pattern length"), in.i32("flags"));
            case Protocol.CMD_UPDATE -> {
                MemorySegment data = MemorySegment.ofBuffer(in.bytes("data"));
                cb.updateBuffer(data, QueueDecoder.ref(in, handles, used), in.i32("flags"));
            }
            case Protocol.CMD_COPY -> cb.copyBuffer(QueueDecoder.ref(in, handles, used),
                    QueueDecoder.ref(in, handles, used), in.i32("flags"));
            case Protocol.CMD_DISPATCH -> {
                Executable executable = handles.get(in.i64("executable"), Executable.class, "dispatch executable");
                int function = in.i32("function");
                var config = QueueDecoder.config(in, handles, used);
                MemorySegment constants = MemorySegment.ofBuffer(in.bytes("constants"));
                cb.dispatch(executable, function, config, constants, QueueDecoder.refs(in, handles, used),
                        in.i64("flags"));
            }
            default -> throw new StatusException(StatusCode.INVALID_ARGUMENT, "command kind " + kind + " is unknown");
        }
    }

    private static MemoryBarrier[] memoryBarriers(FrameReader in) {
        int n = in.count("memory barriers");
        MemoryBarrier[] barriers = new MemoryBarrier[n];
        for (int i = 0; i < n; i++) {
            barriers[i] = new MemoryBarrier(in.i32("memory barrier source scope"), in.i32("memory barrier target scope"));
        }
        return barriers;
    }

    private static BufferBarrier[] bufferBarriers(FrameReader in, HandleTable handles, List<Resource> used) {
        int n = in.count("buffer barriers");
        BufferBarrier[] barriers = new BufferBarrier[n];
        for (int i = 0; i < n; i++) {
            int source = in.i32("buffer barrier source scope");
            int target = in.i32("buffer barrier target scope");
            BufferRef ref = QueueDecoder.ref(in, handles, used);
            if (ref == null) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "buffer barrier " + i + " has no buffer");
            }
            barriers[i] = new BufferBarrier(source, target, ref);
        }
        return barriers;
    }
}
