package dev.ortho.hal.remote.internal.server;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.Device;
import dev.ortho.hal.Event;
import dev.ortho.hal.Executable;
import dev.ortho.hal.remote.internal.protocol.FrameReader;
import dev.ortho.hal.remote.internal.protocol.RecordingCodec;
import dev.ortho.hal.spi.RecordedCommand;
import java.util.List;

/**
 * Rebuilds a command buffer recorded by a client ({@code COMMAND_BUFFER}, decoded by
 * {@link RecordingCodec}, the codec the client encoded with) as a command buffer of the served
 * device, by replaying the commands into it. The device's command buffer retains what it
 * references; a recording error leaves the handle poisoned, so submitting it fails with that
 * error.
 */
final class CommandDecoder {
    private CommandDecoder() {}

    static void record(FrameReader in, HandleTable handles, Device device) {
        RecordingCodec.Header header = RecordingCodec.readHeader(in);
        CommandBuffer commandBuffer = null;
        try {
            handles.checkNew(header.handle());
            List<RecordedCommand> commands = RecordingCodec.readCommands(in, resolver(handles));
            in.end();
            commandBuffer = device.createCommandBuffer(header.mode(), header.categories(), header.affinity(),
                    header.bindingCapacity());
            commandBuffer.begin();
            for (RecordedCommand command : commands) {
                command.replay(commandBuffer);
            }
            commandBuffer.end();
            handles.put(header.handle(), commandBuffer, 0);
        } catch (StatusException e) {
            if (commandBuffer != null) {
                commandBuffer.release();
            }
            if (!in.isMalformed() && e.code() != StatusCode.ALREADY_EXISTS) {
                handles.poison(header.handle(), e);
            }
            throw e;
        }
    }

    /** Resolves a recording's handles in {@code handles} (NOT_FOUND or the handle's poison for unknown ones). */
    static RecordingCodec.HandleReader resolver(HandleTable handles) {
        return new RecordingCodec.HandleReader() {
            @Override
            public Buffer buffer(long handle, String what) {
                return handles.get(handle, Buffer.class, what);
            }

            @Override
            public Event event(long handle, String what) {
                return handles.get(handle, Event.class, what);
            }

            @Override
            public Executable executable(long handle, String what) {
                return handles.get(handle, Executable.class, what);
            }
        };
    }
}
