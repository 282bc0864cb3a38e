package dev.ortho.hal.cpu.internal.vmvx;

import static dev.ortho.hal.cpu.internal.vmvx.Elementwise.F32;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The f32 {@code mmt4d} tile kernel on the Vector API: each output tile is computed in blocks of
 * four rows by one vector of columns, with the four accumulators held in registers across the
 * whole K loop (one RHS vector load and four broadcast multiply-adds per step). The LHS row of
 * tiles and the RHS are staged in {@link Mmt4d.Scratch} as {@code lhs[k][M0][K0]} and
 * {@code rhs[N][k][K0][N0]} so every load is contiguous.
 *
 * <p>Used when {@code jdk.incubator.vector} is present, the hardware has 256-bit vectors and N0
 * is a multiple of 8 (IREE's generic N0 = 8, x86's 16); sums use fused multiply-add, so results may differ from
 * the scalar kernel in the last bits. Loading this class fails with a {@link LinkageError} on
 * JVMs without the module; {@link Mmt4d} only touches it after {@link #available()} succeeded.
 */
final class VectorMmt4d {
    /** 8 f32 lanes: a constant species (C2 intrinsifies only constant species), dividing N0 = 8 and 16. */
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_256;
    private static final int LANES = 8;

    private VectorMmt4d() {}

    /**
     * Whether the hardware runs 256-bit vectors natively (the preferred species has at least 8
     * lanes). Calling this loads the Vector API.
     */
    static boolean available() {
        return FloatVector.SPECIES_PREFERRED.length() >= LANES;
    }

    /** Whether tiles of {@code n0} columns fit this kernel. */
    static boolean supports(int n0) {
        return n0 % LANES == 0;
    }

    /** As {@link Mmt4d#f32}; requires {@link #available()} and {@link #supports}{@code (n0)}. */
    static void f32(Mmt4d.Scratch scratch, MemorySegment lhs, long lhsBase,
            long lhsStride, MemorySegment rhs, long rhsBase, long rhsStride, MemorySegment out, long outBase,
            long outStride, int m, int n, int k, int m0, int n0, int k0, boolean accumulate) {
        int panel = k * k0 * n0;
        float[] b = scratch.rhsPanel(n * panel);
        for (int j = 0; j < n; j++) {
            long rp = rhsBase + 4L * j * rhsStride;
            int base = j * panel;
            for (int kk = 0; kk < k; kk++) {
                for (int j0 = 0; j0 < n0; j0++) {
                    long src = rp + 4L * ((long) (kk * n0 + j0) * k0);
                    int dst = base + kk * k0 * n0 + j0;
                    for (int kz = 0; kz < k0; kz++) {
                        b[dst + kz * n0] = rhs.get(F32, src + 4L * kz);
                    }
                }
            }
        }
        float[] a = scratch.lhsPanel(k * m0 * k0);
        int tile = m0 * n0;
        for (int i = 0; i < m; i++) {
            MemorySegment.copy(lhs, F32, lhsBase + 4L * i * lhsStride, a, 0, k * m0 * k0);
            long rowOut = outBase + 4L * i * outStride;
            for (int j = 0; j < n; j++) {
                long tileOut = rowOut + 4L * j * tile;
                int bBase = j * panel;
                for (int c = 0; c < n0; c += LANES) {
                    int i0 = 0;
                    for (; i0 + 4 <= m0; i0 += 4) {
                        rows4(a, b, bBase + c, out, tileOut + 4L * (i0 * n0 + c), i0, k, m0, n0, k0, accumulate);
                    }
                    for (; i0 < m0; i0++) {
                        row1(a, b, bBase + c, out, tileOut + 4L * (i0 * n0 + c), i0, k, m0, n0, k0, accumulate);
                    }
                }
            }
        }
    }

    private static void rows4(float[] a, float[] b, int bOffset, MemorySegment out,
            long o, int i0, int k, int m0, int n0, int k0, boolean accumulate) {
        long stride = 4L * n0;
        FloatVector acc0;
        FloatVector acc1;
        FloatVector acc2;
        FloatVector acc3;
        if (accumulate) {
            acc0 = FloatVector.fromMemorySegment(S, out, o, ByteOrder.LITTLE_ENDIAN);
            acc1 = FloatVector.fromMemorySegment(S, out, o + stride, ByteOrder.LITTLE_ENDIAN);
            acc2 = FloatVector.fromMemorySegment(S, out, o + 2 * stride, ByteOrder.LITTLE_ENDIAN);
            acc3 = FloatVector.fromMemorySegment(S, out, o + 3 * stride, ByteOrder.LITTLE_ENDIAN);
        } else {
            acc0 = FloatVector.zero(S);
            acc1 = acc0;
            acc2 = acc0;
            acc3 = acc0;
        }
        for (int kk = 0; kk < k; kk++) {
            int aRow = (kk * m0 + i0) * k0;
            int bRow = bOffset + kk * k0 * n0;
            for (int kz = 0; kz < k0; kz++) {
                FloatVector v = FloatVector.fromArray(S, b, bRow + kz * n0);
                acc0 = v.fma(FloatVector.broadcast(S, a[aRow + kz]), acc0);
                acc1 = v.fma(FloatVector.broadcast(S, a[aRow + k0 + kz]), acc1);
                acc2 = v.fma(FloatVector.broadcast(S, a[aRow + 2 * k0 + kz]), acc2);
                acc3 = v.fma(FloatVector.broadcast(S, a[aRow + 3 * k0 + kz]), acc3);
            }
        }
        acc0.intoMemorySegment(out, o, ByteOrder.LITTLE_ENDIAN);
        acc1.intoMemorySegment(out, o + stride, ByteOrder.LITTLE_ENDIAN);
        acc2.intoMemorySegment(out, o + 2 * stride, ByteOrder.LITTLE_ENDIAN);
        acc3.intoMemorySegment(out, o + 3 * stride, ByteOrder.LITTLE_ENDIAN);
    }

    private static void row1(float[] a, float[] b, int bOffset, MemorySegment out,
            long o, int i0, int k, int m0, int n0, int k0, boolean accumulate) {
        FloatVector acc = accumulate ? FloatVector.fromMemorySegment(S, out, o, ByteOrder.LITTLE_ENDIAN)
                : FloatVector.zero(S);
        for (int kk = 0; kk < k; kk++) {
            int aRow = (kk * m0 + i0) * k0;
            int bRow = bOffset + kk * k0 * n0;
            for (int kz = 0; kz < k0; kz++) {
                acc = FloatVector.fromArray(S, b, bRow + kz * n0).fma(FloatVector.broadcast(S, a[aRow + kz]), acc);
            }
        }
        acc.intoMemorySegment(out, o, ByteOrder.LITTLE_ENDIAN);
    }
}
