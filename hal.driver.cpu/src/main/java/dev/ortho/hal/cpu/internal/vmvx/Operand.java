package dev.ortho.hal.cpu.internal.vmvx;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.VmBuffer;

/**
 * Argument checks shared by the {@code vmvx} exports: IREE's {@code MAP_BUFFER_2D} rules. A 2-D
 * operand is a buffer, an element offset, two element strides and two sizes; it touches the
 * bytes {@code [offset, offset + ((size0-1)*stride0 + (size1-1)*stride1 + 1) * elementSize)}.
 * Sizes must fit in 32 bits and strides below {@code 2^32 - 1} (IREE's overflow rule, which also
 * rejects negative values): otherwise INVALID_ARGUMENT "buffer overflow for NAME". A range past
 * the buffer's end is OUT_OF_RANGE, a write to a read-only buffer PERMISSION_DENIED, and an
 * operand with a zero size touches nothing (only its offset is checked).
 *
 * <p>Stateless; every method either returns the byte offset of the operand's first element in
 * {@link VmBuffer#segment()} or throws.
 */
final class Operand {
    private static final long U32 = 0xFFFF_FFFFL;

    private Operand() {}

    /** The buffer in {@code ref}, or INVALID_ARGUMENT naming the operand. */
    static VmBuffer buffer(String name, RefObject ref) {
        if (ref instanceof VmBuffer buffer) {
            return buffer;
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT, "vmvx: " + name + " operand is "
                + (ref == null ? "null" : "a " + ref.refType().name()) + ", expected a vm.buffer");
    }

    /**
     * Checks a strided 2-D operand of {@code buffer} and returns the byte offset of its first
     * element. {@code write} requires a mutable buffer.
     */
    static long map2d(String name, VmBuffer buffer, int elementSize, long offset, long stride0, long stride1,
            long size0, long size1, boolean write) {
        if (size0 < 0 || size0 > U32 || size1 < 0 || size1 > U32 || stride0 < 0 || stride0 >= U32
                || stride1 < 0 || stride1 >= U32 || offset < 0 || offset > Long.MAX_VALUE / elementSize) {
            throw overflow(name, offset, stride0, stride1, size0, size1);
        }
        long length;
        if (size0 == 0 || size1 == 0) {
            length = 0;
        } else {
            try {
                long last = Math.addExact(Math.multiplyExact(size0 - 1, stride0), Math.multiplyExact(size1 - 1, stride1));
                length = Math.multiplyExact(last + 1, elementSize);
            } catch (ArithmeticException e) {
                throw overflow(name, offset, stride0, stride1, size0, size1);
            }
        }
        long byteOffset = offset * elementSize;
        return map(name, buffer, byteOffset, length, write);
    }

    /** Checks the byte range {@code [byteOffset, byteOffset + length)} of {@code buffer}. */
    static long map(String name, VmBuffer buffer, long byteOffset, long length, boolean write) {
        if (write && !buffer.isMutable()) {
            throw new StatusException(StatusCode.PERMISSION_DENIED, "vmvx: " + name
                    + " buffer is read-only and cannot be mapped for mutation");
        }
        if (length > buffer.length() || byteOffset > buffer.length() - length) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "vmvx: " + name + " range [" + byteOffset + ", "
                    + (byteOffset + length) + ") exceeds its buffer length " + buffer.length());
        }
        return byteOffset;
    }

    static StatusException overflow(String name, long offset, long stride0, long stride1, long size0, long size1) {
        return new StatusException(StatusCode.INVALID_ARGUMENT, "vmvx: buffer overflow for " + name + " (offset "
                + offset + ", strides [" + stride0 + ", " + stride1 + "], sizes [" + size0 + ", " + size1 + "])");
    }

    /** INVALID_ARGUMENT unless {@code 0 <= value < 2^bits}. */
    static int unsignedBits(String what, long value, int bits) {
        if (value < 0 || value >= (1L << bits)) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "vmvx: " + what + " " + value
                    + " is outside [0, " + (1L << bits) + ")");
        }
        return (int) value;
    }
}
