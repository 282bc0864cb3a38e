package dev.ortho.hal.cpu.internal.vmvx;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * IREE's {@code pack} and {@code unpack} ukernels: move a strided 2-D matrix into (out of) a
 * tiled 4-D layout {@code [outer0][outer1][tile0][tile1]}, with IREE's
 * {@code TRANSPOSE_OUTER} (the outer dimensions are swapped in the tiled layout) and
 * {@code TRANSPOSE_INNER} (each tile is stored transposed) flags. {@code pack} fills tile
 * elements beyond the source with the padding value (its low {@code width} bytes). The tiled
 * side's outer stride is the given one and its second stride is the tile size, as IREE computes
 * them. Without {@code TRANSPOSE_INNER}, tile rows that are contiguous on both sides move as
 * runs (word by word up to 64 bytes, else bulk copies), and one-row tiles side by side (the LHS
 * of a one-row matmul) move a whole matrix row at a time. Shapes and ranges are checked by the
 * caller; element width is 1 or 4 bytes. Stateless; allocates nothing.
 */
final class Packing {
    static final int TRANSPOSE_INNER = 0x100;
    static final int TRANSPOSE_OUTER = 0x200;
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED;

    private Packing() {}

    /**
     * Packs; sizes are the tiled side's {@code out0..out3} as given (before the transpose flags
     * are applied). Bases in bytes, strides in elements.
     */
    static void pack(int width, int flags, MemorySegment in, long inBase, long inStride0, long inStride1,
            long inSize0, long inSize1, MemorySegment out, long outBase, long outStride0, long out0, long out1,
            long out2, long out3, long padding) {
        long outer0 = out0;
        long outer1 = out1;
        long tile0 = out2;
        long tile1 = out3;
        long os0 = outStride0;
        long os1 = out2 * out3;
        if ((flags & TRANSPOSE_OUTER) != 0) {
            long t = outer0; outer0 = outer1; outer1 = t;
            t = os0; os0 = os1; os1 = t;
        }
        boolean transposeInner = (flags & TRANSPOSE_INNER) != 0;
        if (transposeInner) {
            long t = tile0; tile0 = tile1; tile1 = t;
        }
        if (tile0 == 1 && !transposeInner && (flags & TRANSPOSE_OUTER) == 0 && inStride1 == 1) {
            // one-row tiles side by side: each tiled row is the source row, then padding
            long run = Math.min(inSize1, outer1 * tile1);
            for (long a = 0; a < outer0; a++) {
                long dst = outBase + width * a * os0;
                if (a < inSize0) {
                    copyRun(in, inBase + width * a * inStride0, out, dst, width * run);
                    pad(width, out, dst + width * run, outer1 * tile1 - run, padding);
                } else {
                    pad(width, out, dst, outer1 * tile1, padding);
                }
            }
            return;
        }
        for (long a = 0; a < outer0; a++) {
            for (long b = 0; b < outer1; b++) {
                long base = a * os0 + b * os1;
                boolean wholeRows = !transposeInner && inStride1 == 1 && (b + 1) * tile1 <= inSize1;
                for (long r = 0; r < tile0; r++) {
                    long i0 = a * tile0 + r;
                    if (wholeRows && i0 < inSize0) { // a tile row is a contiguous source run
                        copyRun(in, inBase + width * (i0 * inStride0 + b * tile1), out,
                                outBase + width * (base + r * tile1), width * tile1);
                        continue;
                    }
                    for (long c = 0; c < tile1; c++) {
                        long i1 = b * tile1 + c;
                        long dst = outBase + width * (base + (transposeInner ? c * tile0 + r : r * tile1 + c));
                        if (i0 < inSize0 && i1 < inSize1) {
                            copy(width, in, inBase + width * (i0 * inStride0 + i1 * inStride1), out, dst);
                        } else if (width == 4) {
                            out.set(Elementwise.I32, dst, (int) padding);
                        } else {
                            out.set(ValueLayout.JAVA_BYTE, dst, (byte) padding);
                        }
                    }
                }
            }
        }
    }

    /**
     * Unpacks; sizes are the tiled side's {@code in0..in3} as given. Bases in bytes, strides in
     * elements; the caller has checked that the tiles cover {@code outSize0 × outSize1}.
     */
    static void unpack(int width, int flags, MemorySegment in, long inBase, long inStride0, long in0, long in1,
            long in2, long in3, MemorySegment out, long outBase, long outStride0, long outStride1, long outSize0,
            long outSize1) {
        long tile0 = in2;
        long tile1 = in3;
        long is0 = inStride0;
        long is1 = in2 * in3;
        if ((flags & TRANSPOSE_OUTER) != 0) {
            long t = is0; is0 = is1; is1 = t;
        }
        boolean transposeInner = (flags & TRANSPOSE_INNER) != 0;
        if (transposeInner) {
            long t = tile0; tile0 = tile1; tile1 = t;
        }
        boolean rows = !transposeInner && outStride1 == 1 && tile1 > 0;
        if (rows && tile0 == 1 && (flags & TRANSPOSE_OUTER) == 0) {
            // one-row tiles side by side: each output row is one contiguous source run
            for (long i0 = 0; i0 < outSize0; i0++) {
                copyRun(in, inBase + width * i0 * is0, out, outBase + width * i0 * outStride0, width * outSize1);
            }
            return;
        }
        for (long i0 = 0; i0 < outSize0; i0++) {
            long a = i0 / tile0;
            long r = i0 % tile0;
            long i1 = 0;
            if (rows) { // whole tile rows are contiguous runs on both sides
                for (; i1 + tile1 <= outSize1; i1 += tile1) {
                    long src = a * is0 + (i1 / tile1) * is1 + r * tile1;
                    copyRun(in, inBase + width * src, out, outBase + width * (i0 * outStride0 + i1), width * tile1);
                }
            }
            for (; i1 < outSize1; i1++) {
                long b = i1 / tile1;
                long c = i1 % tile1;
                long src = a * is0 + b * is1 + (transposeInner ? c * tile0 + r : r * tile1 + c);
                copy(width, in, inBase + width * src, out, outBase + width * (i0 * outStride0 + i1 * outStride1));
            }
        }
    }

    /**
     * Copies {@code bytes}; runs of up to 64 bytes in whole 8-byte words (a tile row of 4 or 8
     * f32) move as plain long loads and stores, which cost a fraction of a bulk copy's set-up.
     */
    private static void copyRun(MemorySegment from, long fromOffset, MemorySegment to, long toOffset, long bytes) {
        if (bytes <= 64 && (bytes & 7) == 0) {
            for (long x = 0; x < bytes; x += 8) {
                to.set(I64, toOffset + x, from.get(I64, fromOffset + x));
            }
        } else {
            MemorySegment.copy(from, fromOffset, to, toOffset, bytes);
        }
    }

    /** Writes {@code count} elements of the padding value (its low {@code width} bytes). */
    private static void pad(int width, MemorySegment out, long offset, long count, long padding) {
        for (long x = 0; x < count; x++) {
            if (width == 4) {
                out.set(Elementwise.I32, offset + 4 * x, (int) padding);
            } else {
                out.set(ValueLayout.JAVA_BYTE, offset + x, (byte) padding);
            }
        }
    }

    private static void copy(int width, MemorySegment from, long fromOffset, MemorySegment to, long toOffset) {
        if (width == 4) {
            to.set(Elementwise.I32, toOffset, from.get(Elementwise.I32, fromOffset));
        } else {
            to.set(ValueLayout.JAVA_BYTE, toOffset, from.get(ValueLayout.JAVA_BYTE, fromOffset));
        }
    }
}
