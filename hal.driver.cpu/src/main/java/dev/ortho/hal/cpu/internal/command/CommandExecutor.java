package dev.ortho.hal.cpu.internal.command;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.cpu.internal.executable.DispatchRunner;
import dev.ortho.hal.cpu.internal.heap.HeapBuffer;
import dev.ortho.hal.cpu.internal.heap.Ranges;
import java.lang.foreign.MemorySegment;
import java.util.BitSet;
import java.util.List;

/**
 * Executes {@link Command}s inline on the calling thread against host memory, resolving indirect
 * references through binding-table slots resolved at submission. Stateless and thread-safe.
 */
public final class CommandExecutor {
    private static final MemorySegment[] NO_SLOTS = new MemorySegment[0];

    private CommandExecutor() {}

    /**
     * Resolves the binding-table slots in {@code used} to the memory of their ranges, so that
     * the table's contents are captured at submission.
     *
     * @throws StatusException OUT_OF_RANGE if the table has fewer slots than the highest used
     *     slot needs, or a slot's range exceeds its buffer; INVALID_ARGUMENT for an empty slot or
     *     a buffer not allocated by a local CPU device
     */
    public static MemorySegment[] resolveSlots(BindingTable table, BitSet used) {
        checkSlots(table, used);
        if (used.isEmpty()) {
            return NO_SLOTS;
        }
        MemorySegment[] slots = new MemorySegment[used.length()];
        for (int slot = used.nextSetBit(0); slot >= 0; slot = used.nextSetBit(slot + 1)) {
            String what = "binding table slot " + slot;
            slots[slot] = HeapBuffer.cast(table.buffer(slot), what).range(what, table.offset(slot), table.length(slot));
        }
        return slots;
    }

    /**
     * The checks of {@link #resolveSlots} that need no memory (so transient buffers whose alloca
     * has not executed yet pass): slot count, empty slots, buffer kind and ranges.
     */
    public static void checkSlots(BindingTable table, BitSet used) {
        if (used.isEmpty()) {
            return;
        }
        int required = used.length();
        if (table == null || table.size() < required) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "binding table has "
                    + (table == null ? 0 : table.size()) + " slots but the command buffer uses slot " + (required - 1));
        }
        for (int slot = used.nextSetBit(0); slot >= 0; slot = used.nextSetBit(slot + 1)) {
            if (table.buffer(slot) instanceof HeapBuffer heap
                    && Ranges.fits(table.offset(slot), table.length(slot), heap.byteLength())) {
                continue; // valid: no message to build (this runs on every submission)
            }
            String what = "binding table slot " + slot;
            if (table.buffer(slot) == null) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " is empty but the command buffer uses it");
            }
            HeapBuffer.cast(table.buffer(slot), what).checkRange(what, table.offset(slot), table.length(slot));
        }
    }

    /** Executes {@code commands} in order; the first failure stops execution and is thrown. */
    public static void executeAll(List<Command> commands, MemorySegment[] slots) {
        for (int i = 0; i < commands.size(); i++) {
            try {
                execute(commands.get(i), slots);
            } catch (StatusException e) {
                throw e.annotate("while executing command " + i + " (" + commands.get(i).getClass().getSimpleName() + ")");
            }
        }
    }

    /** Executes one command. */
    public static void execute(Command command, MemorySegment[] slots) {
        switch (command) {
            case Command.Fill fill -> {
                MemorySegment target = resolve(fill.target(), slots, "fill target");
                Ranges.checkPattern(fill.target().offset(), target.byteSize(), fill.patternLength());
                Ranges.fill(target, fill.pattern(), fill.patternLength());
            }
            case Command.Update update -> {
                MemorySegment target = resolve(update.target(), slots, "update target");
                MemorySegment.copy(MemorySegment.ofArray(update.data()), 0, target, 0, update.data().length);
            }
            case Command.Copy copy -> {
                MemorySegment source = resolve(copy.source(), slots, "copy source");
                MemorySegment target = resolve(copy.target(), slots, "copy target");
                if (source.byteSize() != target.byteSize()) {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT, "copy source length " + source.byteSize()
                            + " differs from target length " + target.byteSize());
                }
                if (source.asOverlappingSlice(target).isPresent()) { // binding-table slots may alias
                    throw Command.overlap(copy.source().offset(), copy.target().offset(), source.byteSize());
                }
                MemorySegment.copy(source, 0, target, 0, source.byteSize());
            }
            case Command.Dispatch dispatch -> {
                BufferRef[] refs = dispatch.bindings();
                MemorySegment[] bindings = new MemorySegment[refs.length];
                for (int i = 0; i < refs.length; i++) {
                    bindings[i] = resolve(refs[i], slots, "dispatch binding " + i);
                }
                MemorySegment count = dispatch.countRef() == null ? null
                        : resolve(dispatch.countRef(), slots, "dispatch workgroup count");
                DispatchRunner.run(dispatch.function(), dispatch.config(), dispatch.constants(), bindings, count);
            }
        }
    }

    /** The memory {@code ref} names: a direct buffer range, or a range of a resolved slot. */
    public static MemorySegment resolve(BufferRef ref, MemorySegment[] slots, String what) {
        if (!ref.isIndirect()) {
            return HeapBuffer.cast(ref.buffer(), what).range(what, ref.offset(), ref.length());
        }
        MemorySegment slot = slots[ref.bufferSlot()]; // resolveSlots sized the array past every used slot
        long length = Ranges.resolve(what + " (slot " + ref.bufferSlot() + ")", ref.offset(), ref.length(), slot.byteSize());
        return slot.asSlice(ref.offset(), length);
    }
}
