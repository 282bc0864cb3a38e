package dev.ortho.hal.cpu.internal.command;

import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.cpu.internal.heap.HeapBuffer;
import dev.ortho.hal.cpu.internal.heap.Ranges;
import dev.ortho.hal.cpu.kernel.DispatchState;
import dev.ortho.hal.spi.RecordedCommand;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * A {@link DispatchState} cached in a {@link BlockProgram} slot together with what it was built
 * from, so a resubmitted command buffer reuses it instead of building one per dispatch.
 *
 * <p>A state's binding segments are views of specific memory. For a direct binding the buffer is
 * fixed by the recorded command (the entry matches while its memory was not given up). For a
 * binding-table slot the entry remembers the <em>memory</em> the slot resolved to: the address,
 * length, liveness scope and read-only bit of the slot's range of the buffer's committed root
 * memory. A submission matches when every slot resolves to the same memory, still alive, and the
 * concurrency is the same; then the cached segments are exactly the ones a rebuild would make.
 * Keying on memory rather than on the buffer object lets the state survive what IREE-compiled
 * programs do on every call: bind a buffer their queue alloca just made, which the device's pool
 * serves from the same recycled block as the last call's. Only native memory is keyed that way
 * (a heap segment's address is an offset into one of many arrays), others never match.
 *
 * <p>Immutable (final fields, arrays never written after construction): safe to publish racily
 * through the program's cache slot.
 */
final class DispatchCacheEntry {
    private final DispatchState state;
    private final int workers;
    /** Per binding: the scope of the slot's memory for an indirect binding, null for a direct one. */
    private final MemorySegment.Scope[] slotScopes;
    private final long[] slotAddresses;
    private final long[] slotLengths;
    private final boolean[] slotReadOnly;

    private DispatchCacheEntry(DispatchState state, int workers, MemorySegment.Scope[] slotScopes,
            long[] slotAddresses, long[] slotLengths, boolean[] slotReadOnly) {
        this.state = state;
        this.workers = workers;
        this.slotScopes = slotScopes;
        this.slotAddresses = slotAddresses;
        this.slotLengths = slotLengths;
        this.slotReadOnly = slotReadOnly;
    }

    /**
     * The entry for {@code state}, just built for {@code dispatch} with {@code table}; null if a
     * slot's memory cannot be keyed (not native), so the state is not cached.
     */
    static DispatchCacheEntry of(RecordedCommand.Dispatch dispatch, BindingTable table, int workers,
            DispatchState state) {
        List<BufferRef> refs = dispatch.bindings();
        int n = refs.size();
        MemorySegment.Scope[] scopes = new MemorySegment.Scope[n];
        long[] addresses = new long[n];
        long[] lengths = new long[n];
        boolean[] readOnly = new boolean[n];
        for (int i = 0; i < n; i++) {
            if (refs.get(i).isIndirect()) {
                int slot = refs.get(i).bufferSlot();
                HeapBuffer heap = (HeapBuffer) table.buffer(slot); // resolved just now: a committed heap buffer
                MemorySegment root = heap.committedMemoryOrNull();
                if (root == null || !root.isNative()) {
                    return null;
                }
                long offset = table.offset(slot);
                scopes[i] = root.scope();
                addresses[i] = root.address() + heap.byteOffset() + offset;
                lengths[i] = table.length(slot) == Buffer.WHOLE_BUFFER ? heap.byteLength() - offset
                        : table.length(slot);
                readOnly[i] = root.isReadOnly();
            }
        }
        return new DispatchCacheEntry(state, workers, scopes, addresses, lengths, readOnly);
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
            if (ref.isIndirect()) {
                int slot = ref.bufferSlot();
                if (slotScopes[i] == null || !(table.buffer(slot) instanceof HeapBuffer heap)) {
                    return false;
                }
                long offset = table.offset(slot);
                long length = table.length(slot);
                if (!Ranges.fits(offset, length, heap.byteLength())) {
                    return false; // rebuild: resolving reports the range
                }
                MemorySegment root = heap.committedMemoryOrNull(); // null: given up or not committed
                if (root == null || !root.isNative() || root.address() + heap.byteOffset() + offset != slotAddresses[i]
                        || (length == Buffer.WHOLE_BUFFER ? heap.byteLength() - offset : length) != slotLengths[i]
                        || root.isReadOnly() != slotReadOnly[i] || !root.scope().equals(slotScopes[i])) {
                    return false;
                }
            } else if (!(ref.buffer() instanceof HeapBuffer heap) || heap.isDecommitted()) {
                return false; // rebuild: resolving reports the freed memory
            }
        }
        return true;
    }
}
