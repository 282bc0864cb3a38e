package dev.ortho.hal.cpu.internal.vmvx;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The {@code copy.2d.x8|x16|x32|x64} and {@code fill.2d.x32} kernels over operands checked by
 * {@link Operand}. Rows with unit innermost strides are bulk copies ({@link MemorySegment#copy})
 * or contiguous fill loops; other rows move element by element. Stateless; allocates nothing.
 */
final class Copy {
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Copy() {}

    /** {@code out[i][j] = in[i][j]} for {@code width}-byte elements; bases in bytes, strides in elements. */
    static void copy2d(int width, MemorySegment in, long inBase, long inStride0, long inStride1, MemorySegment out,
            long outBase, long outStride0, long outStride1, long size0, long size1) {
        for (long i = 0; i < size0; i++) {
            long s = inBase + width * i * inStride0;
            long o = outBase + width * i * outStride0;
            if (inStride1 == 1 && outStride1 == 1) {
                MemorySegment.copy(in, s, out, o, width * size1);
                continue;
            }
            for (long j = 0; j < size1; j++) {
                long from = s + width * j * inStride1;
                long to = o + width * j * outStride1;
                switch (width) {
                    case 1 -> out.set(ValueLayout.JAVA_BYTE, to, in.get(ValueLayout.JAVA_BYTE, from));
                    case 2 -> out.set(I16, to, in.get(I16, from));
                    case 4 -> out.set(Elementwise.I32, to, in.get(Elementwise.I32, from));
                    default -> out.set(I64, to, in.get(I64, from));
                }
            }
        }
    }

    /** {@code out[i][j] = value}; rows {@code rowStride} elements apart, base in bytes. */
    static void fill2d(MemorySegment out, long outBase, long rowStride, long size0, long size1, int value) {
        for (long i = 0; i < size0; i++) {
            long o = outBase + 4 * i * rowStride;
            long end = o + 4 * size1;
            for (long x = o; x < end; x += 4) {
                out.set(Elementwise.I32, x, value);
            }
        }
    }
}
