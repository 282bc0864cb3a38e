package dev.ortho.hal.remote.internal.protocol;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferBarrier;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Event;
import dev.ortho.hal.Executable;
import dev.ortho.hal.MemoryBarrier;
import dev.ortho.hal.Resource;
import dev.ortho.hal.spi.CommandRecorder;
import dev.ortho.hal.spi.RecordedCommand;
import dev.ortho.hal.spi.Recording;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The wire form of a {@link Recording} ({@link Protocol#COMMAND_BUFFER}) and of the buffer
 * references and dispatches queue operations share with it: the one encoder the client uses and
 * the one decoder the server uses, so the format is written once. The layouts are those
 * {@link Protocol} documents ({@code CMD_*} kinds, buffer reference kinds, barriers).
 *
 * <p>Resources travel as handles: the client names them with a {@link HandleWriter}, the server
 * resolves them with a {@link HandleReader}. A direct reference carries its root allocation's
 * handle, the absolute offset in it ({@link Buffer#byteOffset()} plus the reference's offset) and
 * its resolved length.
 *
 * <p>Decoding a corrupt frame throws {@link StatusException}: a truncated field or a bad count is
 * INVALID_ARGUMENT from {@link FrameReader} naming the field (the frame is then malformed), an
 * unknown kind or a value a HAL type refuses is INVALID_ARGUMENT naming the field and the value.
 * Stateless; thread-safe.
 */
public final class RecordingCodec {
    private RecordingCodec() {}

    /** Names resources by their handles (client side). */
    @FunctionalInterface
    public interface HandleWriter {
        /** The handle of a buffer's root allocation, an event or an executable. */
        long handle(Resource resource);
    }

    /** Resolves handles (server side); each throws a StatusException for an unknown handle. */
    public interface HandleReader {
        Buffer buffer(long handle, String what);

        Event event(long handle, String what);

        Executable executable(long handle, String what);
    }

    /** The fields of a {@link Protocol#COMMAND_BUFFER} frame before its commands. */
    public record Header(long handle, int mode, int categories, long affinity, int bindingCapacity) {}

    // ---- encoding ----

    /** Appends a whole {@link Protocol#COMMAND_BUFFER} payload: header, command count, commands. */
    public static FrameWriter writeCommandBuffer(FrameWriter out, long handle, long affinity, Recording recording,
            HandleWriter handles) {
        out.putI64(handle).putI32(recording.mode()).putI32(recording.categories()).putI64(affinity)
                .putI32(recording.bindingCapacity()).putI32(recording.commands().size());
        for (RecordedCommand command : recording.commands()) {
            writeCommand(out, command, handles);
        }
        return out;
    }

    /** Appends one command: its {@code CMD_*} kind and operands. */
    public static void writeCommand(FrameWriter out, RecordedCommand command, HandleWriter handles) {
        switch (command) {
            case RecordedCommand.BeginDebugGroup begin -> out.putU8(Protocol.CMD_BEGIN_DEBUG_GROUP)
                    .putString(begin.label());
            case RecordedCommand.EndDebugGroup end -> out.putU8(Protocol.CMD_END_DEBUG_GROUP);
            case RecordedCommand.Barrier barrier -> {
                out.putU8(Protocol.CMD_BARRIER).putI32(barrier.sourceStages()).putI32(barrier.targetStages())
                        .putI32(barrier.flags());
                writeBarriers(out, barrier.memoryBarriers(), barrier.bufferBarriers(), handles);
            }
            case RecordedCommand.SignalEvent signal -> out.putU8(Protocol.CMD_SIGNAL_EVENT)
                    .putI64(handles.handle(signal.event())).putI32(signal.sourceStages());
            case RecordedCommand.ResetEvent reset -> out.putU8(Protocol.CMD_RESET_EVENT)
                    .putI64(handles.handle(reset.event())).putI32(reset.sourceStages());
            case RecordedCommand.WaitEvents wait -> {
                out.putU8(Protocol.CMD_WAIT_EVENTS).putI32(wait.events().size());
                for (Event event : wait.events()) {
                    out.putI64(handles.handle(event));
                }
                out.putI32(wait.sourceStages()).putI32(wait.targetStages());
                writeBarriers(out, wait.memoryBarriers(), wait.bufferBarriers(), handles);
            }
            case RecordedCommand.Advise advise -> {
                out.putU8(Protocol.CMD_ADVISE);
                writeRef(out, advise.buffer(), handles);
                out.putI64(advise.flags()).putI64(advise.arg0()).putI64(advise.arg1());
            }
            case RecordedCommand.Fill fill -> {
                out.putU8(Protocol.CMD_FILL);
                writeRef(out, fill.target(), handles);
                out.putI32(fill.pattern()).putI32(fill.patternLength()).putI32(fill.flags());
            }
            case RecordedCommand.Update update -> {
                out.putU8(Protocol.CMD_UPDATE).putBytes(update.data(), 0, update.data().length);
                writeRef(out, update.target(), handles);
                out.putI32(update.flags());
            }
            case RecordedCommand.Copy copy -> {
                out.putU8(Protocol.CMD_COPY);
                writeRef(out, copy.source(), handles);
                writeRef(out, copy.target(), handles);
                out.putI32(copy.flags());
            }
            case RecordedCommand.Dispatch dispatch -> {
                out.putU8(Protocol.CMD_DISPATCH);
                writeDispatch(out, handles.handle(dispatch.executable()), dispatch.function(), dispatch.config(),
                        MemorySegment.ofArray(dispatch.constants()), dispatch.bindings(), handles);
                out.putI64(dispatch.flags());
            }
        }
    }

    private static void writeBarriers(FrameWriter out, List<MemoryBarrier> memory, List<BufferBarrier> buffers,
            HandleWriter handles) {
        out.putI32(memory.size());
        for (MemoryBarrier barrier : memory) {
            out.putI32(barrier.sourceScope()).putI32(barrier.targetScope());
        }
        out.putI32(buffers.size());
        for (BufferBarrier barrier : buffers) {
            out.putI32(barrier.sourceScope()).putI32(barrier.targetScope());
            writeRef(out, barrier.buffer(), handles);
        }
    }

    /**
     * Appends a buffer reference: none for null, a slot as given, a direct one with its root
     * handle, absolute offset and resolved length (the caller checked its range).
     */
    public static void writeRef(FrameWriter out, BufferRef ref, HandleWriter handles) {
        if (ref == null) {
            out.putU8(Protocol.REF_NONE);
        } else if (ref.isIndirect()) {
            out.putU8(Protocol.REF_SLOT).putI32(ref.bufferSlot()).putI64(ref.offset()).putI64(ref.length());
        } else {
            Buffer buffer = ref.buffer();
            long length = ref.length() == Buffer.WHOLE_BUFFER ? buffer.byteLength() - ref.offset() : ref.length();
            out.putU8(Protocol.REF_DIRECT).putI64(handles.handle(buffer)).putI64(buffer.byteOffset() + ref.offset())
                    .putI64(length);
        }
    }

    /**
     * Appends a dispatch's operands (shared by {@code CMD_DISPATCH} and {@link Protocol#QUEUE_DISPATCH}):
     * u64 executable, u32 function, u32 workgroup size x/y/z, u32 count x/y/z, count reference,
     * u32 dynamic local memory, bytes constants, u32 n, n binding references.
     */
    public static void writeDispatch(FrameWriter out, long executable, int function, DispatchConfig config,
            MemorySegment constants, List<BufferRef> bindings, HandleWriter handles) {
        out.putI64(executable).putI32(function).putI32(config.workgroupSizeX()).putI32(config.workgroupSizeY())
                .putI32(config.workgroupSizeZ()).putI32(config.workgroupCountX()).putI32(config.workgroupCountY())
                .putI32(config.workgroupCountZ());
        writeRef(out, config.workgroupCountRef(), handles);
        out.putI32(config.dynamicLocalMemory());
        long constantBytes = constants == null ? 0 : constants.byteSize();
        out.putBytes(constants == null ? MemorySegment.NULL : constants, 0, (int) constantBytes);
        out.putI32(bindings.size());
        for (BufferRef binding : bindings) {
            writeRef(out, binding, handles);
        }
    }

    // ---- decoding ----

    /** Reads the fields of a {@link Protocol#COMMAND_BUFFER} payload before its commands. */
    public static Header readHeader(FrameReader in) {
        long handle = in.i64("handle");
        int mode = in.i32("mode");
        int categories = in.i32("categories");
        long affinity = in.i64("affinity");
        int capacity = in.i32("binding capacity");
        return new Header(handle, mode, categories, affinity, capacity);
    }

    /** Reads the command count and the commands after a {@link #readHeader header}. */
    public static List<RecordedCommand> readCommands(FrameReader in, HandleReader handles) {
        int count = in.count("commands", 1);
        List<RecordedCommand> commands = new ArrayList<>(Math.min(count, 64));
        for (int i = 0; i < count; i++) {
            commands.add(readCommand(in, handles));
        }
        return commands;
    }

    /**
     * Decodes a whole {@link Protocol#COMMAND_BUFFER} payload into a recording, checked by a
     * {@link CommandRecorder} as the client's was (creation arguments, categories, slots, debug
     * groups; nothing is retained), and verifies the frame ends there.
     */
    public static Decoded readCommandBuffer(FrameReader in, HandleReader handles) {
        Header header = readHeader(in);
        List<RecordedCommand> commands = readCommands(in, handles);
        in.end();
        CommandRecorder.checkCreate("command buffer frame", header.mode(), header.categories(),
                header.bindingCapacity());
        CommandRecorder recorder = new CommandRecorder("command buffer " + header.handle(), header.mode(),
                header.categories(), header.bindingCapacity(), false);
        recorder.begin();
        for (RecordedCommand command : commands) {
            switch (command) {
                case RecordedCommand.BeginDebugGroup begin -> recorder.beginDebugGroup(begin.label());
                case RecordedCommand.EndDebugGroup end -> recorder.endDebugGroup();
                default -> recorder.record(command);
            }
        }
        return new Decoded(header, recorder.end());
    }

    /** A decoded {@link Protocol#COMMAND_BUFFER} frame. */
    public record Decoded(Header header, Recording recording) {}

    /** Reads one command (its kind, then its operands). */
    public static RecordedCommand readCommand(FrameReader in, HandleReader handles) {
        int kind = in.u8("command kind");
        return switch (kind) {
            case Protocol.CMD_BEGIN_DEBUG_GROUP -> new RecordedCommand.BeginDebugGroup(in.string("label"));
            case Protocol.CMD_END_DEBUG_GROUP -> new RecordedCommand.EndDebugGroup();
            case Protocol.CMD_BARRIER -> {
                int source = in.i32("source stages");
                int target = in.i32("target stages");
                int flags = in.i32("flags");
                List<MemoryBarrier> memory = memoryBarriers(in);
                yield new RecordedCommand.Barrier(source, target, flags, memory, bufferBarriers(in, handles));
            }
            case Protocol.CMD_SIGNAL_EVENT -> new RecordedCommand.SignalEvent(
                    handles.event(in.i64("event"), "event"), in.i32("stages"));
            case Protocol.CMD_RESET_EVENT -> new RecordedCommand.ResetEvent(
                    handles.event(in.i64("event"), "event"), in.i32("stages"));
            case Protocol.CMD_WAIT_EVENTS -> {
                int n = in.count("events", 8);
                List<Event> events = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    events.add(handles.event(in.i64("event"), "event"));
                }
                int source = in.i32("source stages");
                int target = in.i32("target stages");
                List<MemoryBarrier> memory = memoryBarriers(in);
                yield new RecordedCommand.WaitEvents(events, source, target, memory, bufferBarriers(in, handles));
            }
            case Protocol.CMD_ADVISE -> new RecordedCommand.Advise(requireRef(readRef(in, handles), "advise buffer"),
                    in.i64("flags"), in.i64("arg0"), in.i64("arg1"));
            case Protocol.CMD_FILL -> new RecordedCommand.Fill(requireRef(readRef(in, handles), "fill target"),
                    in.i32("pattern"), in.i32("pattern length"), in.i32("flags"));
            case Protocol.CMD_UPDATE -> {
                byte[] data = bytes(in.bytes("data"));
                yield new RecordedCommand.Update(data, requireRef(readRef(in, handles), "update target"),
                        in.i32("flags"));
            }
            case Protocol.CMD_COPY -> new RecordedCommand.Copy(requireRef(readRef(in, handles), "copy source"),
                    requireRef(readRef(in, handles), "copy target"), in.i32("flags"));
            case Protocol.CMD_DISPATCH -> {
                Executable executable = handles.executable(in.i64("executable"), "dispatch executable");
                int function = in.i32("function");
                DispatchConfig config = readConfig(in, handles);
                byte[] constants = bytes(in.bytes("constants"));
                List<BufferRef> bindings = readRefs(in, handles, "dispatch binding");
                yield new RecordedCommand.Dispatch(executable, function, config, constants, bindings,
                        in.i64("flags"));
            }
            default -> throw new StatusException(StatusCode.INVALID_ARGUMENT, "command kind " + kind
                    + " is unknown (known: " + Protocol.CMD_BEGIN_DEBUG_GROUP + ".." + Protocol.CMD_ADVISE + ")");
        };
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    private static BufferRef requireRef(BufferRef ref, String what) {
        if (ref == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " buffer reference kind "
                    + Protocol.REF_NONE + " (none) where a buffer is required");
        }
        return ref;
    }

    private static List<MemoryBarrier> memoryBarriers(FrameReader in) {
        int n = in.count("memory barriers", 8);
        List<MemoryBarrier> barriers = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            barriers.add(new MemoryBarrier(in.i32("memory barrier source scope"),
                    in.i32("memory barrier target scope")));
        }
        return barriers;
    }

    private static List<BufferBarrier> bufferBarriers(FrameReader in, HandleReader handles) {
        int n = in.count("buffer barriers", 9);
        List<BufferBarrier> barriers = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int source = in.i32("buffer barrier source scope");
            int target = in.i32("buffer barrier target scope");
            barriers.add(new BufferBarrier(source, target, requireRef(readRef(in, handles), "buffer barrier " + i)));
        }
        return barriers;
    }

    /**
     * Reads a buffer reference (null for kind none). INVALID_ARGUMENT naming the value for an
     * unknown kind or a range or slot a {@link BufferRef} refuses.
     */
    public static BufferRef readRef(FrameReader in, HandleReader handles) {
        int kind = in.u8("buffer reference kind");
        return switch (kind) {
            case Protocol.REF_NONE -> null;
            case Protocol.REF_DIRECT -> {
                Buffer buffer = handles.buffer(in.i64("buffer"), "referenced buffer");
                yield BufferRef.of(buffer, in.i64("offset"), in.i64("length"));
            }
            case Protocol.REF_SLOT -> BufferRef.slot(in.i32("slot"), in.i64("offset"), in.i64("length"));
            default -> throw new StatusException(StatusCode.INVALID_ARGUMENT, "buffer reference kind " + kind
                    + " is not 0, 1 or 2");
        };
    }

    /** Reads a count and that many buffer references. */
    public static List<BufferRef> readRefs(FrameReader in, HandleReader handles, String what) {
        int count = in.count("bindings", 1);
        List<BufferRef> refs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            refs.add(requireRef(readRef(in, handles), what + " " + i));
        }
        return refs;
    }

    /** Reads a dispatch configuration (sizes, counts, count reference, dynamic local memory). */
    public static DispatchConfig readConfig(FrameReader in, HandleReader handles) {
        int sx = in.i32("workgroup size x");
        int sy = in.i32("workgroup size y");
        int sz = in.i32("workgroup size z");
        int cx = in.i32("workgroup count x");
        int cy = in.i32("workgroup count y");
        int cz = in.i32("workgroup count z");
        BufferRef countRef = readRef(in, handles);
        int local = in.i32("dynamic local memory");
        return new DispatchConfig(sx, sy, sz, cx, cy, cz, countRef, local);
    }
}
