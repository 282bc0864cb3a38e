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
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * One recorded or queued operation of a CPU device, with its arguments checked and captured. The
 * factory methods check everything knowable at the call (direct buffer ranges, pattern sizes,
 * constant and binding counts) and throw; indirect references are checked when
 * {@link CommandExecutor} resolves them. Immutable.
 */
public sealed interface Command {
    /** IREE's limit on inline update data. */
    long MAX_UPDATE_BYTES = dev.ortho.hal.spi.CommandRecorder.MAX_UPDATE_BYTES;

    /** Fill {@code target} with a 1, 2 or 4 byte pattern. */
    record Fill(BufferRef target, int pattern, int patternLength) implements Command {}

    /** Copy captured host bytes into {@code target} (whose length is the data length). */
    record Update(byte[] data, BufferRef target) implements Command {}

    /** Copy {@code source} to {@code target}. */
    record Copy(BufferRef source, BufferRef target) implements Command {}

    /** Dispatch {@code function}; {@code countRef} is non-null for indirect workgroup counts. */
    record Dispatch(KernelFunction function, DispatchConfig config, int[] constants, BufferRef[] bindings,
            BufferRef countRef) implements Command {}

    /** Checks and captures a fill. */
    static Fill fill(BufferRef target, int pattern, int patternLength) {
        long length = directLength(target, "fill target");
        Ranges.checkPattern(target.offset(), length < 0 ? 0 : length, patternLength);
        return new Fill(target, pattern, patternLength);
    }

    /** Checks and captures an update; {@code source} is copied now. */
    static Update update(MemorySegment source, BufferRef target) {
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
        return new Update(source.toArray(ValueLayout.JAVA_BYTE), exact);
    }

    /** Checks and captures a copy. */
    static Copy copy(BufferRef source, BufferRef target) {
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
        return new Copy(source, target);
    }

    /** IREE's rule for copies: source and target must not overlap within one allocation. */
    static StatusException overlap(long sourceOffset, long targetOffset, long length) {
        return new StatusException(StatusCode.INVALID_ARGUMENT, "copy source range [" + sourceOffset + ", "
                + (sourceOffset + length) + ") and target range [" + targetOffset + ", " + (targetOffset + length)
                + ") overlap within the same allocation");
    }

    /**
     * Checks and captures a dispatch: the executable is a local (jvm-static or vmvx) one, the ordinal exists, the
     * constants are a multiple of 4 bytes and match the function's count, and the bindings match
     * its binding count.
     */
    static Dispatch dispatch(Executable executable, int ordinal, DispatchConfig config, MemorySegment constants,
            BufferRef[] bindings, long flags) {
        if (!(executable instanceof KernelExecutable local)) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "dispatch executable " + executable
                    + " was not prepared by a local CPU device");
        }
        KernelFunction function = local.function(ordinal);
        ExecutableFunctionInfo info = function.info();
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
            directLength(bindings[i], "dispatch '" + info.name() + "' binding " + i);
        }
        BufferRef countRef = null;
        if ((flags & (DispatchFlags.DYNAMIC_INDIRECT_PARAMETERS | DispatchFlags.STATIC_INDIRECT_PARAMETERS)) != 0) {
            countRef = requireRef(config.workgroupCountRef(), "dispatch '" + info.name() + "' workgroup count");
            directLength(countRef, "dispatch '" + info.name() + "' workgroup count");
        }
        int[] values = constantBytes == 0 ? new int[0] : constants.toArray(
                ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN));
        return new Dispatch(function, config, values, bindingCount == 0 ? new BufferRef[0] : bindings.clone(), countRef);
    }

    /** Calls {@code action} with every buffer this command references directly. */
    default void forEachDirectBuffer(Consumer<Buffer> action) {
        switch (this) {
            case Fill f -> direct(f.target(), action);
            case Update u -> direct(u.target(), action);
            case Copy c -> {
                direct(c.source(), action);
                direct(c.target(), action);
            }
            case Dispatch d -> {
                for (BufferRef binding : d.bindings()) {
                    direct(binding, action);
                }
                direct(d.countRef(), action);
            }
        }
    }

    /** Calls {@code action} with every binding-table slot this command references. */
    default void forEachSlot(IntConsumer action) {
        switch (this) {
            case Fill f -> slot(f.target(), action);
            case Update u -> slot(u.target(), action);
            case Copy c -> {
                slot(c.source(), action);
                slot(c.target(), action);
            }
            case Dispatch d -> {
                for (BufferRef binding : d.bindings()) {
                    slot(binding, action);
                }
                slot(d.countRef(), action);
            }
        }
    }

    private static void direct(BufferRef ref, Consumer<Buffer> action) {
        if (ref != null && !ref.isIndirect()) {
            action.accept(ref.buffer());
        }
    }

    private static void slot(BufferRef ref, IntConsumer action) {
        if (ref != null && ref.isIndirect()) {
            action.accept(ref.bufferSlot());
        }
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
