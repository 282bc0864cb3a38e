package dev.ortho.hal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;

/**
 * A buffer range used by a command: either a direct {@link Buffer} or a slot of the binding table
 * supplied at submission ({@code buffer == null}). IREE's {@code iree_hal_buffer_ref_t}.
 *
 * @param bufferSlot binding table slot, used when {@code buffer} is null (24 bits, as IREE)
 * @param buffer the buffer, or null for an indirect reference; not retained by the record
 * @param offset byte offset into the buffer (or into the bound range of the slot)
 * @param length byte length, or {@link Buffer#WHOLE_BUFFER}
 */
public record BufferRef(int bufferSlot, Buffer buffer, long offset, long length) {
    /** The largest binding-table slot a reference can name (IREE stores it in 24 bits). */
    public static final int MAX_SLOT = (1 << 24) - 1;

    /**
     * @throws StatusException INVALID_ARGUMENT for a negative offset, a negative length other
     *     than WHOLE_BUFFER, or a slot outside {@code [0, MAX_SLOT]}
     */
    public BufferRef {
        if (bufferSlot < 0 || bufferSlot > MAX_SLOT) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "buffer slot " + bufferSlot
                    + " is outside [0, " + MAX_SLOT + "]");
        }
        if (offset < 0 || (length < 0 && length != Buffer.WHOLE_BUFFER)) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "buffer range offset " + offset
                    + " length " + length + " is invalid");
        }
    }

    /** A direct reference to {@code [offset, offset + length)} of {@code buffer}. */
    public static BufferRef of(Buffer buffer, long offset, long length) {
        return new BufferRef(0, buffer, offset, length);
    }

    /** A direct reference to all of {@code buffer}. */
    public static BufferRef of(Buffer buffer) {
        return new BufferRef(0, buffer, 0, Buffer.WHOLE_BUFFER);
    }

    /** An indirect reference to {@code [offset, offset + length)} of binding-table slot {@code slot}. */
    public static BufferRef slot(int slot, long offset, long length) {
        return new BufferRef(slot, null, offset, length);
    }

    /** Whether this reference is resolved through the binding table at submission. */
    public boolean isIndirect() {
        return buffer == null;
    }
}
