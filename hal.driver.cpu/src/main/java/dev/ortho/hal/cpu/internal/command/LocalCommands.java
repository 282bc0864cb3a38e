package dev.ortho.hal.cpu.internal.command;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferOverlap;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.DispatchFlags;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.cpu.internal.heap.HeapBuffer;
import dev.ortho.hal.cpu.internal.heap.Ranges;
import dev.ortho.hal.cpu.kernel.KernelExecutable;
import dev.ortho.hal.cpu.kernel.KernelFunction;
import dev.ortho.hal.spi.CommandRecorder;
import dev.ortho.hal.spi.RecordedCommand;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.function.Consumer;

/**
 * The CPU devices' checks of the commands they run, and what the tile engine reads from a
 * {@link RecordedCommand}. The factories check everything knowable at the call (direct buffer
 * ranges, pattern sizes, the dispatch's function, constant and binding counts), throw, and return
 * the shared {@link RecordedCommand} — the one form a command is kept in, by a command buffer's
 * recording and by a queue operation alike; indirect references are checked when
 * {@link CommandExecutor} resolves them. The engine runs fills, updates, copies and dispatches;
 * every other recorded command has no tiles.
 */
public final class LocalCommands {
    /** IREE's limit on inline update data. */
    public static final long MAX_UPDATE_BYTES = CommandRecorder.MAX_UPDATE_BYTES;
    private static final int[] NO_CONSTANTS = {};
    private static final ValueLayout.OfInt U32_LE =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    private LocalCommands() {
    }

    /** Checks and captures a fill. */
    public static RecordedCommand.Fill fill(BufferRef target, int pattern, int patternLength, int flags) {
        long length = directLength(target, "fill target");
        Ranges.checkPattern(target.offset(), length < 0 ? 0 : length, patternLength);
        return new RecordedCommand.Fill(target, pattern, patternLength, flags);
    }

    /**
     * The checks of {@link #fill} of {@code BufferRef.of(target, offset, length)}, with the same
     * messages, without making the reference: returns the resolved length (a queue fill that runs
     * on the caller needs no command).
     */
    public static long fillLength(Buffer target, long offset, long length, int patternLength) {
        if (!(offset >= 0 && target instanceof HeapBuffer heap && Ranges.fits(offset, length, heap.byteLength()))) {
            fill(BufferRef.of(target, offset, length), 0, patternLength, 0); // fails with a recorded fill's message
        }
        long resolved = HeapBuffer.cast(target, "fill target").checkRange("fill target", offset, length);
        Ranges.checkPattern(offset, resolved, patternLength);
        return resolved;
    }

    /**
     * Checks and captures an update; {@code source} is copied now and the target's length becomes
     * the data length.
     */
    public static RecordedCommand.Update update(MemorySegment source, BufferRef target, int flags) {
        if (source == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "update source is null");
        }
        if (source.byteSize() > MAX_UPDATE_BYTES) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "update source is " + source.byteSize()
                    + " bytes, more than the limit " + MAX_UPDATE_BYTES);
        }
        BufferRef exact = new BufferRef(requireRef(target, "update target").bufferSlot(), target.buffer(),
                target.offset(), source.byteSize());
        directLength(exact, "update target");
        return new RecordedCommand.Update(source.toArray(ValueLayout.JAVA_BYTE), exact, flags);
    }

    /** Checks and captures a copy. */
    public static RecordedCommand.Copy copy(BufferRef source, BufferRef target, int flags) {
        long sourceLength = directLength(source, "copy source");
        long targetLength = directLength(target, "copy target");
        if (sourceLength >= 0 && targetLength >= 0 && sourceLength != targetLength) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "copy source length " + sourceLength
                    + " differs from target length " + targetLength);
        }
        if (sourceLength >= 0 && targetLength >= 0 && BufferOverlap.test(source.buffer(), source.offset(),
                sourceLength, target.buffer(), target.offset(), targetLength) != BufferOverlap.DISJOINT) {
            throw overlap(source.offset(), target.offset(), sourceLength);
        }
        return new RecordedCommand.Copy(source, target, flags);
    }

    /** IREE's rule for copies: source and target must not overlap within one allocation. */
    static StatusException overlap(long sourceOffset, long targetOffset, long length) {
        return new StatusException(StatusCode.INVALID_ARGUMENT, "copy source range [" + sourceOffset + ", "
                + (sourceOffset + length) + ") and target range [" + targetOffset + ", " + (targetOffset + length)
                + ") overlap within the same allocation");
    }

    /**
     * Checks and captures a dispatch: the executable is a local (jvm-static or vmvx) one, the
     * ordinal exists, the constants are a multiple of 4 bytes and match the function's count, and
     * the bindings match its binding count. The constants and bindings are copied now.
     */
    public static RecordedCommand.Dispatch dispatch(Executable executable, int ordinal, DispatchConfig config,
            MemorySegment constants, BufferRef[] bindings, long flags) {
        if (!(executable instanceof KernelExecutable local)) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "dispatch executable " + executable
                    + " was not prepared by a local CPU device");
        }
        ExecutableFunctionInfo info = local.function(ordinal).info();
        if (config == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "dispatch '" + info.name() + "' config is null");
        }
        long constantBytes = constants == null ? 0 : constants.byteSize();
        if (constantBytes % 4 != 0 || constantBytes / 4 != info.constantCount()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "dispatch '" + info.name() + "' constants are "
                    + constantBytes + " bytes; the function reads " + info.constantCount() + " 32-bit constants");
        }
        int bindingCount = bindings == null ? 0 : bindings.length;
        if (bindingCount != info.bindingCount()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "dispatch '" + info.name() + "' has "
                    + bindingCount + " bindings; the function uses " + info.bindingCount());
        }
        for (int i = 0; i < bindingCount; i++) {
            if (!fits(bindings[i])) { // the name is built only for a failing binding: recording allocates no strings
                directLength(bindings[i], "dispatch '" + info.name() + "' binding " + i);
            }
        }
        if (isIndirect(flags)) {
            BufferRef countRef = requireRef(config.workgroupCountRef(), "dispatch '" + info.name()
                    + "' workgroup count");
            directLength(countRef, "dispatch '" + info.name() + "' workgroup count");
        }
        return CommandRecorder.dispatch(executable, ordinal, config, constants, bindings, flags);
    }

    private static boolean isIndirect(long flags) {
        return (flags & (DispatchFlags.DYNAMIC_INDIRECT_PARAMETERS | DispatchFlags.STATIC_INDIRECT_PARAMETERS)) != 0;
    }

    // ---- what the engine reads from a checked dispatch -------------------------------------------

    /** The function a checked dispatch runs (a lookup in its executable's function table). */
    static KernelFunction function(RecordedCommand.Dispatch dispatch) {
        return ((KernelExecutable) dispatch.executable()).function(dispatch.function());
    }

    /** The reference an indirect dispatch reads its workgroup count from, or null for a direct count. */
    static BufferRef countRef(RecordedCommand.Dispatch dispatch) {
        return isIndirect(dispatch.flags()) ? dispatch.config().workgroupCountRef() : null;
    }

    /** A dispatch's captured little-endian constant bytes as 32-bit values (a new array, or a shared empty one). */
    static int[] constants(RecordedCommand.Dispatch dispatch) {
        byte[] bytes = dispatch.constants();
        if (bytes.length == 0) {
            return NO_CONSTANTS;
        }
        int[] values = new int[bytes.length / 4];
        MemorySegment segment = MemorySegment.ofArray(bytes);
        for (int i = 0; i < values.length; i++) {
            values[i] = segment.get(U32_LE, 4L * i);
        }
        return values;
    }

    /** Whether the engine runs {@code command} (fills, updates, copies, dispatches); other commands have no tiles. */
    static boolean runs(RecordedCommand command) {
        return command instanceof RecordedCommand.Fill || command instanceof RecordedCommand.Update
                || command instanceof RecordedCommand.Copy || command instanceof RecordedCommand.Dispatch;
    }

    /** Whether {@code command} orders the commands around it (barriers and events end a region). */
    static boolean endsRegion(RecordedCommand command) {
        return command instanceof RecordedCommand.Barrier || command instanceof RecordedCommand.SignalEvent
                || command instanceof RecordedCommand.ResetEvent || command instanceof RecordedCommand.WaitEvents;
    }

    /**
     * Calls {@code action} with every buffer reference the engine resolves when it runs
     * {@code command}: a fill's, update's or copy's operands, a dispatch's bindings and, for an
     * indirect one, its workgroup count. Barriers, events and advice resolve none.
     */
    public static void forEachRunRef(RecordedCommand command, Consumer<BufferRef> action) {
        switch (command) {
            case RecordedCommand.Fill f -> action.accept(f.target());
            case RecordedCommand.Update u -> action.accept(u.target());
            case RecordedCommand.Copy c -> {
                action.accept(c.source());
                action.accept(c.target());
            }
            case RecordedCommand.Dispatch d -> {
                List<BufferRef> bindings = d.bindings();
                for (int i = 0; i < bindings.size(); i++) {
                    action.accept(bindings.get(i));
                }
                BufferRef count = countRef(d);
                if (count != null) {
                    action.accept(count);
                }
            }
            default -> { }
        }
    }

    /** Whether {@link #directLength} accepts {@code ref}, without a message (an indirect reference is checked later). */
    private static boolean fits(BufferRef ref) {
        return ref != null && (ref.isIndirect() || ref.buffer() instanceof HeapBuffer heap
                && Ranges.fits(ref.offset(), ref.length(), heap.byteLength()));
    }

    private static BufferRef requireRef(BufferRef ref, String what) {
        if (ref == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " buffer reference is null");
        }
        return ref;
    }

    /**
     * Checks a reference recorded outside any command (barriers, advice): non-null, and a direct
     * one's range fits its buffer; returns its resolved length, or -1 for an indirect one.
     *
     * @throws StatusException INVALID_ARGUMENT for null or a foreign buffer, OUT_OF_RANGE naming
     *     {@code what}, the range and the buffer length
     */
    static long checkReference(BufferRef ref, String what) {
        return directLength(ref, what);
    }

    /** The resolved length of a direct reference (checking its range now), or -1 for an indirect one. */
    private static long directLength(BufferRef ref, String what) {
        if (requireRef(ref, what).isIndirect()) {
            return -1;
        }
        return HeapBuffer.cast(ref.buffer(), what).checkRange(what, ref.offset(), ref.length());
    }
}
