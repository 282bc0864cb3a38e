package dev.ortho.hal.cpu.internal.builtin;

import static dev.ortho.hal.cpu.internal.builtin.BuiltinKernels.F32;

import dev.ortho.hal.cpu.kernel.DispatchState;
import dev.ortho.hal.cpu.kernel.WorkgroupState;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The Vector API body of {@code matmul_f32}: a register-blocked microkernel computing a 4-row
 * by two-vector-wide block of C (8 accumulator registers) per pass over a K block of 256,
 * broadcasting one element of A per row and loading two vectors of a B row per step (8 FMAs per
 * 6 loads). The K block of B's column block is first packed into the workgroup's local memory so
 * its rows are contiguous. Rows beyond the last full 4-row block use a one-row pass, columns
 * beyond the last full two-vector block scalar code. (An 8-row block needs more registers than
 * C1's linear scan has, and its compilation stalls at C1 on a loaded machine.)
 *
 * <p>Loaded only through {@link MatmulF32#select()}, which falls back to the scalar kernel when
 * the {@code jdk.incubator.vector} module is not in the JVM (or not imported by the framework).
 * Stateless and allocation-free once compiled (vectors are scalar-replaced by C2).
 */
final class VectorMatmulF32 {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int LANES = S.length();
    private static final int ROWS = 4;
    private static final int K_BLOCK = 256;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private VectorMatmulF32() {}

    /**
     * Bytes of workgroup local memory used to pack a K block of B's column block contiguously
     * (so B rows {@code n·4} bytes apart do not alias in the L1 sets); the function declares this
     * much static local memory, and without it the kernel reads B in place.
     */
    static final long PANEL_BYTES = (long) K_BLOCK * 2 * LANES * 4;

    /** Copies {@code rows} rows of two vectors each from B ({@code stride} apart) into {@code panel}. */
    private static void packPanel(MemorySegment b, MemorySegment panel, long offset, long stride, long rows) {
        long vBytes = LANES * 4L;
        long to = 0;
        for (long r = 0; r < rows; r++) {
            FloatVector.fromMemorySegment(S, b, offset, LE).intoMemorySegment(panel, to, LE);
            FloatVector.fromMemorySegment(S, b, offset + vBytes, LE).intoMemorySegment(panel, to + vBytes, LE);
            offset += stride;
            to += 2 * vBytes;
        }
    }

    /** The vector width in floats; at least 4 for this kernel to be worth using. */
    static int lanes() {
        return LANES;
    }

    static void run(DispatchState dispatch, WorkgroupState workgroup) {
        long m = Integer.toUnsignedLong(dispatch.constant(0));
        long n = Integer.toUnsignedLong(dispatch.constant(1));
        long k = Integer.toUnsignedLong(dispatch.constant(2));
        MemorySegment a = dispatch.requireBinding(0, MatmulF32.bytes(m, k));
        MemorySegment b = dispatch.requireBinding(1, MatmulF32.bytes(k, n));
        MemorySegment c = dispatch.requireBinding(2, MatmulF32.bytes(m, n));
        long col0 = (long) workgroup.workgroupIdX() * dispatch.workgroupSizeX();
        long row0 = (long) workgroup.workgroupIdY() * dispatch.workgroupSizeY();
        long col1 = Math.min(n, col0 + dispatch.workgroupSizeX());
        long row1 = Math.min(m, row0 + dispatch.workgroupSizeY());
        if (row0 >= row1 || col0 >= col1) {
            return;
        }
        if (k == 0) {
            for (long i = row0; i < row1; i++) {
                c.asSlice((i * n + col0) * 4, (col1 - col0) * 4).fill((byte) 0);
            }
            return;
        }
        MemorySegment panel = workgroup.localMemory();
        boolean pack = panel.byteSize() >= PANEL_BYTES;
        for (long kk = 0; kk < k; kk += K_BLOCK) {
            long kEnd = Math.min(k, kk + K_BLOCK);
            boolean first = kk == 0;
            long j = col0;
            for (; j + 2L * LANES <= col1; j += 2L * LANES) {
                MemorySegment bSource = b;
                long bOffset = (kk * n + j) * 4;
                long bStride = n * 4;
                if (pack) {
                    packPanel(b, panel, bOffset, bStride, kEnd - kk);
                    bSource = panel;
                    bOffset = 0;
                    bStride = 2L * LANES * 4;
                }
                long i = row0;
                for (; i + ROWS <= row1; i += ROWS) {
                    block4(a, bSource, bOffset, bStride, c, i, j, kk, kEnd, n, k, first);
                }
                for (; i < row1; i++) {
                    block1(a, bSource, bOffset, bStride, c, i, j, kk, kEnd, n, k, first);
                }
            }
            for (; j < col1; j++) {
                for (long i = row0; i < row1; i++) {
                    float sum = first ? 0f : c.getAtIndex(F32, i * n + j);
                    for (long p = kk; p < kEnd; p++) {
                        sum += a.getAtIndex(F32, i * k + p) * b.getAtIndex(F32, p * n + j);
                    }
                    c.setAtIndex(F32, i * n + j, sum);
                }
            }
        }
    }

    /** C[i..i+4)[j..j+2·LANES) (+)= A[i..i+4)[kk..kEnd) · B[kk..kEnd)[j..j+2·LANES). */
    private static void block4(MemorySegment a, MemorySegment b, long bStart, long bStride, MemorySegment c, long i,
            long j, long kk, long kEnd, long n, long k, boolean first) {
        long rowBytes = n * 4;
        long cOff = (i * n + j) * 4;
        long vBytes = LANES * 4L;
        FloatVector c00 = first ? FloatVector.zero(S) : FloatVector.fromMemorySegment(S, c, cOff + 0 * rowBytes + 0 * vBytes, LE);
        FloatVector c01 = first ? FloatVector.zero(S) : FloatVector.fromMemorySegment(S, c, cOff + 0 * rowBytes + 1 * vBytes, LE);
        FloatVector c10 = first ? FloatVector.zero(S) : FloatVector.fromMemorySegment(S, c, cOff + 1 * rowBytes + 0 * vBytes, LE);
        FloatVector c11 = first ? FloatVector.zero(S) : FloatVector.fromMemorySegment(S, c, cOff + 1 * rowBytes + 1 * vBytes, LE);
        FloatVector c20 = first ? FloatVector.zero(S) : FloatVector.fromMemorySegment(S, c, cOff + 2 * rowBytes + 0 * vBytes, LE);
        FloatVector c21 = first ? FloatVector.zero(S) : FloatVector.fromMemorySegment(S, c, cOff + 2 * rowBytes + 1 * vBytes, LE);
        FloatVector c30 = first ? FloatVector.zero(S) : FloatVector.fromMemorySegment(S, c, cOff + 3 * rowBytes + 0 * vBytes, LE);
        FloatVector c31 = first ? FloatVector.zero(S) : FloatVector.fromMemorySegment(S, c, cOff + 3 * rowBytes + 1 * vBytes, LE);
        long a0 = ((i + 0) * k + kk) * 4;
        long a1 = ((i + 1) * k + kk) * 4;
        long a2 = ((i + 2) * k + kk) * 4;
        long a3 = ((i + 3) * k + kk) * 4;
        long bOff = bStart;
        for (long p = kk; p < kEnd; p++) {
            FloatVector b0 = FloatVector.fromMemorySegment(S, b, bOff, LE);
            FloatVector b1 = FloatVector.fromMemorySegment(S, b, bOff + vBytes, LE);
            FloatVector x0 = FloatVector.broadcast(S, a.get(F32, a0));
            c00 = x0.fma(b0, c00);
            c01 = x0.fma(b1, c01);
            a0 += 4;
            FloatVector x1 = FloatVector.broadcast(S, a.get(F32, a1));
            c10 = x1.fma(b0, c10);
            c11 = x1.fma(b1, c11);
            a1 += 4;
            FloatVector x2 = FloatVector.broadcast(S, a.get(F32, a2));
            c20 = x2.fma(b0, c20);
            c21 = x2.fma(b1, c21);
            a2 += 4;
            FloatVector x3 = FloatVector.broadcast(S, a.get(F32, a3));
            c30 = x3.fma(b0, c30);
            c31 = x3.fma(b1, c31);
            a3 += 4;
            bOff += bStride;
        }
        c00.intoMemorySegment(c, cOff + 0 * rowBytes + 0 * vBytes, LE);
        c01.intoMemorySegment(c, cOff + 0 * rowBytes + 1 * vBytes, LE);
        c10.intoMemorySegment(c, cOff + 1 * rowBytes + 0 * vBytes, LE);
        c11.intoMemorySegment(c, cOff + 1 * rowBytes + 1 * vBytes, LE);
        c20.intoMemorySegment(c, cOff + 2 * rowBytes + 0 * vBytes, LE);
        c21.intoMemorySegment(c, cOff + 2 * rowBytes + 1 * vBytes, LE);
        c30.intoMemorySegment(c, cOff + 3 * rowBytes + 0 * vBytes, LE);
        c31.intoMemorySegment(c, cOff + 3 * rowBytes + 1 * vBytes, LE);
    }

    /** One row of {@link #block4}. */
    private static void block1(MemorySegment a, MemorySegment b, long bStart, long bStride, MemorySegment c, long i,
            long j, long kk, long kEnd, long n, long k, boolean first) {
        long rowBytes = n * 4;
        long cOff = (i * n + j) * 4;
        long vBytes = LANES * 4L;
        FloatVector c0 = first ? FloatVector.zero(S) : FloatVector.fromMemorySegment(S, c, cOff, LE);
        FloatVector c1 = first ? FloatVector.zero(S) : FloatVector.fromMemorySegment(S, c, cOff + vBytes, LE);
        long aOff = (i * k + kk) * 4;
        long bOff = bStart;
        for (long p = kk; p < kEnd; p++) {
            FloatVector x = FloatVector.broadcast(S, a.get(F32, aOff));
            c0 = x.fma(FloatVector.fromMemorySegment(S, b, bOff, LE), c0);
            c1 = x.fma(FloatVector.fromMemorySegment(S, b, bOff + vBytes, LE), c1);
            aOff += 4;
            bOff += bStride;
        }
        c0.intoMemorySegment(c, cOff, LE);
        c1.intoMemorySegment(c, cOff + vBytes, LE);
    }
}
