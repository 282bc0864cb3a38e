package dev.ortho.hal.cpu.internal.command;

import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.cpu.internal.heap.HeapBuffer;
import dev.ortho.hal.cpu.kernel.DispatchState;
import dev.ortho.hal.spi.RecordedCommand;
import java.util.List;

/**
 * A {@link DispatchState} cached in a {@link BlockProgram} slot together with what it was built
 * from, so a resubmitted command buffer reuses it instead of building one per dispatch.
 *
 * <p>A state's binding segments are views of specific buffers' memory. For a direct binding the
 * buffer is fixed by the recorded command; for a binding-table slot the entry remembers the
 * table's buffer object, offset and length. The entry {@link #matches} a submission when every
 * slot binds the same buffer object with the same range, no bound buffer's memory was given up
 * (dealloca or last release) and the concurrency is the same. A transient (queue-allocated)
 * buffer object is committed at most once, so the same object means the same memory.
 *
 * <p>Immutable (final fields, arrays never written after construction): safe to publish racily
 * through the program's cache slot.
 */
final class DispatchCacheEntry {
    private final DispatchState state;
    private final int workers;
    /** Per binding: the table's buffer for an indirect binding, null for a direct one. */
    private final Buffer[] slotBuffers;
    private final long[] slotOffsets;
    private final long[] slotLengths;

    private DispatchCacheEntry(DispatchState state, int workers, Buffer[] slotBuffers, long[] slotOffsets,
            long[] slotLengths) {
        this.state = state;
        this.workers = workers;
        this.slotBuffers = slotBuffers;
        this.slotOffsets = slotOffsets;
        this.slotLengths = slotLengths;
    }

    /** The entry for {@code state}, just built for {@code dispatch} with {@code table}. */
    static DispatchCacheEntry of(RecordedCommand.Dispatch dispatch, BindingTable table, int workers,
            DispatchState state) {
        List<BufferRef> refs = dispatch.bindings();
        Buffer[] buffers = new Buffer[refs.size()];
        long[] offsets = new long[buffers.length];
        long[] lengths = new long[buffers.length];
        for (int i = 0; i < buffers.length; i++) {
            if (refs.get(i).isIndirect()) {
                int slot = refs.get(i).bufferSlot();
                buffers[i] = table.buffer(slot);
                offsets[i] = table.offset(slot);
                lengths[i] = table.length(slot);
            }
        }
        return new DispatchCacheEntry(state, workers, buffers, offsets, lengths);
    }

    DispatchState state() {
        return state;
    }

    /** Whether {@link #state()} is valid for {@code dispatch} submitted with {@code table}. Allocation-free. */
    boolean matches(RecordedCommand.Dispatch dispatch, BindingTable table, int workers) {
        if (workers != this.workers) {
            return false;
        }
        List<BufferRef> refs = dispatch.bindings();
        for (int i = 0; i < refs.size(); i++) {
            BufferRef ref = refs.get(i);
            Buffer buffer;
            if (ref.isIndirect()) {
                int slot = ref.bufferSlot();
                buffer = table.buffer(slot);
                if (buffer != slotBuffers[i] || table.offset(slot) != slotOffsets[i]
                        || table.length(slot) != slotLengths[i]) {
                    return false;
                }
            } else {
                buffer = ref.buffer();
            }
            if (!(buffer instanceof HeapBuffer heap) || heap.isDecommitted()) {
                return false; // rebuild: resolving reports the freed memory
            }
        }
        return true;
    }
}
