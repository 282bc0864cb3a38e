package dev.ortho.hal;

import java.util.Arrays;

/**
 * The buffers that indirect {@link BufferRef}s of a reusable command buffer resolve to at
 * submission: IREE's {@code iree_hal_buffer_binding_table_t}. Slot {@code i} is
 * {@code [offset(i), offset(i) + length(i))} of {@code buffer(i)}.
 *
 * <p>Immutable. It does not retain its buffers; a submission retains what it uses (unless
 * told to borrow).
 */
public final class BindingTable {
    private static final BindingTable EMPTY = new BindingTable(new Buffer[0], new long[0], new long[0]);

    private final Buffer[] buffers;
    private final long[] offsets;
    private final long[] lengths;

    private BindingTable(Buffer[] buffers, long[] offsets, long[] lengths) {
        this.buffers = buffers;
        this.offsets = offsets;
        this.lengths = lengths;
    }

    /** The table with no slots, for command buffers that only use direct references. */
    public static BindingTable empty() {
        return EMPTY;
    }

    /** A table whose slot {@code i} is all of {@code buffers[i]} (null leaves the slot empty). */
    public static BindingTable of(Buffer... buffers) {
        long[] offsets = new long[buffers.length];
        long[] lengths = new long[buffers.length];
        Arrays.fill(lengths, Buffer.WHOLE_BUFFER);
        return new BindingTable(buffers.clone(), offsets, lengths);
    }

    /** A table built from explicit ranges; the arrays are copied and must have equal lengths. */
    public static BindingTable of(Buffer[] buffers, long[] offsets, long[] lengths) {
        checkLengths(buffers, offsets, lengths);
        return new BindingTable(buffers.clone(), offsets.clone(), lengths.clone());
    }

    /**
     * As {@link #of(Buffer[], long[], long[])} without the copies: the table takes the arrays,
     * which the caller must never change afterwards (for callers that build them anew per
     * submission, as the HAL module's {@code queue.execute.indirect} does).
     *
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT if the lengths differ
     */
    public static BindingTable wrap(Buffer[] buffers, long[] offsets, long[] lengths) {
        checkLengths(buffers, offsets, lengths);
        return new BindingTable(buffers, offsets, lengths);
    }

    private static void checkLengths(Buffer[] buffers, long[] offsets, long[] lengths) {
        if (buffers.length != offsets.length || buffers.length != lengths.length) {
            throw new dev.ortho.base.StatusException(dev.ortho.base.StatusCode.INVALID_ARGUMENT,
                    "binding table arrays differ in length: " + buffers.length + " buffers, "
                            + offsets.length + " offsets, " + lengths.length + " lengths");
        }
    }

    public int size() {
        return buffers.length;
    }

    /**
     * The buffer in {@code slot}, or null if the slot is empty.
     *
     * @throws dev.ortho.base.StatusException OUT_OF_RANGE if {@code slot} is not in
     *     {@code [0, size())}
     */
    public Buffer buffer(int slot) {
        return buffers[checkSlot(slot)];
    }

    /** Offset of {@code slot}'s range; OUT_OF_RANGE as {@link #buffer(int)}. */
    public long offset(int slot) {
        return offsets[checkSlot(slot)];
    }

    /** Length of {@code slot}'s range (or {@link Buffer#WHOLE_BUFFER}); OUT_OF_RANGE as {@link #buffer(int)}. */
    public long length(int slot) {
        return lengths[checkSlot(slot)];
    }

    private int checkSlot(int slot) {
        if (slot < 0 || slot >= buffers.length) {
            throw new dev.ortho.base.StatusException(dev.ortho.base.StatusCode.OUT_OF_RANGE,
                    "binding table slot " + slot + " is outside [0, " + buffers.length + ")");
        }
        return slot;
    }
}
