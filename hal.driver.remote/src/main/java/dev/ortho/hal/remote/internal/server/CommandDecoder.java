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
        long dataBytes = 0; // reserved against the memory quota
        try {
            handles.checkNew(header.handle());
            List<RecordedCommand> commands = RecordingCodec.readCommands(in, resolver(handles));
            in.end();
            // a command buffer keeps its updates' data as long as the client keeps its handle:
            // counted against the memory quota, or a client could make the server hold a frame's
            // worth (16 MiB) per handle, 65,536 handles by default
            long updates = 0;
            for (RecordedCommand command : commands) {
                if (command instanceof RecordedCommand.Update update) {
                    updates += update.data().length;
                }
            }
            handles.reserveMemory(updates, "command buffer " + header.handle() + " update data");
            dataBytes = updates;
            commandBuffer = device.createCommandBuffer(header.mode(), header.categories(), header.affinity(),
                    header.bindingCapacity());
            commandBuffer.begin();
            for (RecordedCommand command : commands) {
                command.replay(commandBuffer);
            }
            commandBuffer.end();
            handles.put(header.handle(), commandBuffer, dataBytes);
        } catch (StatusException e) {
            if (commandBuffer != null) {
                commandBuffer.release();
            }
            handles.releaseMemory(dataBytes);
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
