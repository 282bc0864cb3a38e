package dev.ortho.hal.cpu.internal.vmvx;

import static dev.ortho.hal.cpu.internal.vmvx.Elementwise.F32;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The f32 {@code mmt4d} tile kernels on the Vector API. One vector holds eight adjacent output
 * columns ({@code j0}) of a tile row, and every output element sums its products in IREE's
 * generic order — {@code acc += lhs * rhs} over {@code k}, then {@code k0}, a rounded multiply
 * and a rounded add, no fused multiply-add — so results are bit-identical to IREE's generic
 * tile function and to {@link Mmt4d#f32Scalar}. Lanes never reassociate a sum; the speed comes
 * from computing many independent outputs at once.
 *
 * <ul>
 * <li>{@code M0 = 1, N0 = 8, K0 = 4} (the tiles IREE's compiler gives VMVX for one-row
 *     matmuls): no staging. Each RHS tile step {@code rhs[k][8][4]} is four vector loads
 *     transposed in registers by two rounds of two-table permutes
 *     ({@link FloatVector#selectFrom(jdk.incubator.vector.Vector, jdk.incubator.vector.Vector)})
 *     into one vector per {@code k0}; two output tiles advance together (two independent sums)
 *     and share the LHS broadcasts.</li>
 * <li>any other M0 with N0 a multiple of 8 (VMVX's M0 = 8): the RHS is staged once per call in
 *     {@link Mmt4d.Scratch} as {@code [N][K][K0][N0]} — for N0 = 8, K0 = 4 by the same
 *     in-register transpose, else element by element — so every load is contiguous; rows are
 *     then computed in blocks of four, each RHS vector shared by four sums.</li>
 * </ul>
 *
 * <p>Requires {@code jdk.incubator.vector} and hardware with 256-bit vectors ({@link #available()});
 * loading this class fails with a {@link LinkageError} on JVMs without the module, and
 * {@link Mmt4d} only touches it after {@link #available()} succeeded. Operands are checked by the
 * caller. Allocates nothing once the scratch arrays have grown (the vectors are scalar-replaced
 * by C2). Thread-safe per scratch.
 */
final class VectorMmt4d {
    /** 8 f32 lanes: a constant species (C2 intrinsifies only constant species). */
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_256;
    private static final int LANES = 8;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    /** Bytes of one RHS (or LHS, M0 = 8) step of an 8 x 4 tile: 32 floats. */
    private static final long STEP = 4L * 8 * 4;

    /*
     * The in-register transpose of an RHS step rhs[j0][k0] (j0 < 8, k0 < 4; four vectors
     * r0..r3, r_q holding rows 2q and 2q+1). Round one picks, from the table (r0, r1) = rows 0..3,
     * the k0 = 0 and 1 columns (EVEN) or k0 = 2 and 3 (ODD) as [col a rows 0..3 | col b rows 0..3];
     * likewise from (r2, r3). Round two joins the row halves: LOW takes the first halves of both
     * tables, HIGH the second. Index vectors hold lane numbers into the two-vector table.
     */
    private static final FloatVector EVEN = indices(0, 4, 8, 12, 1, 5, 9, 13);
    private static final FloatVector ODD = indices(2, 6, 10, 14, 3, 7, 11, 15);
    private static final FloatVector LOW = indices(0, 1, 2, 3, 8, 9, 10, 11);
    private static final FloatVector HIGH = indices(4, 5, 6, 7, 12, 13, 14, 15);

    private VectorMmt4d() {}

    private static FloatVector indices(float... lanes) {
        return FloatVector.fromArray(S, lanes, 0);
    }

    /**
     * Whether the hardware runs 256-bit vectors natively (the preferred species has at least 8
     * lanes). Calling this loads the Vector API.
     */
    static boolean available() {
        return FloatVector.SPECIES_PREFERRED.length() >= LANES;
    }

    /** Whether tiles of {@code n0} columns fit these kernels. */
    static boolean supports(int n0) {
        return n0 % LANES == 0;
    }

    /** As {@link Mmt4d#f32}; requires {@link #available()} and {@link #supports}{@code (n0)}. */
    static void f32(Mmt4d.Scratch scratch, MemorySegment lhs, long lhsBase,
            long lhsStride, MemorySegment rhs, long rhsBase, long rhsStride, MemorySegment out, long outBase,
            long outStride, int m, int n, int k, int m0, int n0, int k0, boolean accumulate) {
        if (n0 == 8 && k0 == 4 && m0 == 1) {
            oneRow(lhs, lhsBase, 4 * lhsStride, rhs, rhsBase, 4 * rhsStride, out, outBase, 4 * outStride, m, n, k,
                    accumulate);
        } else {
            staged(scratch, lhs, lhsBase, lhsStride, rhs, rhsBase, rhsStride, out, outBase, outStride, m, n, k, m0,
                    n0, k0, accumulate);
        }
    }

    /*
     * The hot loops below spell every vector operation out, in methods small enough for C1: a
     * helper holding vector code that C2 compiled on its own first is too large to inline
     * afterwards, and a method C1 gives up on ("out of virtual registers") can stay in C1's
     * non-profiling tier for good; either way the vectors are boxed, megabytes per call.
     */

    /** M0 = 1, N0 = 8, K0 = 4; strides in bytes. Tiles in pairs, then the odd one. */
    private static void oneRow(MemorySegment lhs, long lhsBase, long lhsStride, MemorySegment rhs, long rhsBase,
            long rhsStride, MemorySegment out, long outBase, long outStride, int m, int n, int k,
            boolean accumulate) {
        for (int i = 0; i < m; i++) {
            long lp = lhsBase + i * lhsStride;
            long op = outBase + i * outStride;
            int j = 0;
            for (; j + 2 <= n; j += 2) {
                tiles2(lhs, lp, rhs, rhsBase + j * rhsStride, rhsStride, out, op + 32L * j, k, accumulate);
            }
            if (j < n) {
                tile1(lhs, lp, rhs, rhsBase + j * rhsStride, out, op + 32L * j, k, accumulate);
            }
        }
    }

    /**
     * One output row across two adjacent tiles {@code rhsStride} bytes apart: two independent
     * sums, the LHS step of {@code k0 = 0..3} broadcast once for both.
     */
    private static void tiles2(MemorySegment lhs, long lp, MemorySegment rhs, long rp, long rhsStride,
            MemorySegment out, long o, int k, boolean accumulate) {
        FloatVector acc0 = accumulate ? FloatVector.fromMemorySegment(S, out, o, LE) : FloatVector.zero(S);
        FloatVector acc1 = accumulate ? FloatVector.fromMemorySegment(S, out, o + 32, LE) : FloatVector.zero(S);
        FloatVector even = EVEN;
        FloatVector odd = ODD;
        FloatVector low = LOW;
        FloatVector high = HIGH;
        for (int kk = 0; kk < k; kk++) {
            long l = lp + 16L * kk;
            FloatVector a0 = FloatVector.broadcast(S, lhs.get(F32, l));
            FloatVector a1 = FloatVector.broadcast(S, lhs.get(F32, l + 4));
            FloatVector a2 = FloatVector.broadcast(S, lhs.get(F32, l + 8));
            FloatVector a3 = FloatVector.broadcast(S, lhs.get(F32, l + 12));
            long r = rp + STEP * kk;
            FloatVector v0 = FloatVector.fromMemorySegment(S, rhs, r, LE);
            FloatVector v1 = FloatVector.fromMemorySegment(S, rhs, r + 32, LE);
            FloatVector v2 = FloatVector.fromMemorySegment(S, rhs, r + 64, LE);
            FloatVector v3 = FloatVector.fromMemorySegment(S, rhs, r + 96, LE);
            FloatVector e01 = even.selectFrom(v0, v1);
            FloatVector e23 = even.selectFrom(v2, v3);
            FloatVector o01 = odd.selectFrom(v0, v1);
            FloatVector o23 = odd.selectFrom(v2, v3);
            acc0 = acc0.add(low.selectFrom(e01, e23).mul(a0)).add(high.selectFrom(e01, e23).mul(a1))
                    .add(low.selectFrom(o01, o23).mul(a2)).add(high.selectFrom(o01, o23).mul(a3));
            r += rhsStride;
            v0 = FloatVector.fromMemorySegment(S, rhs, r, LE);
            v1 = FloatVector.fromMemorySegment(S, rhs, r + 32, LE);
            v2 = FloatVector.fromMemorySegment(S, rhs, r + 64, LE);
            v3 = FloatVector.fromMemorySegment(S, rhs, r + 96, LE);
            e01 = even.selectFrom(v0, v1);
            e23 = even.selectFrom(v2, v3);
            o01 = odd.selectFrom(v0, v1);
            o23 = odd.selectFrom(v2, v3);
            acc1 = acc1.add(low.selectFrom(e01, e23).mul(a0)).add(high.selectFrom(e01, e23).mul(a1))
                    .add(low.selectFrom(o01, o23).mul(a2)).add(high.selectFrom(o01, o23).mul(a3));
        }
        acc0.intoMemorySegment(out, o, LE);
        acc1.intoMemorySegment(out, o + 32, LE);
    }

    /** One output row of one tile. */
    private static void tile1(MemorySegment lhs, long lp, MemorySegment rhs, long rp, MemorySegment out, long o,
            int k, boolean accumulate) {
        FloatVector acc = accumulate ? FloatVector.fromMemorySegment(S, out, o, LE) : FloatVector.zero(S);
        FloatVector even = EVEN;
        FloatVector odd = ODD;
        FloatVector low = LOW;
        FloatVector high = HIGH;
        for (int kk = 0; kk < k; kk++) {
            long l = lp + 16L * kk;
            long r = rp + STEP * kk;
            FloatVector v0 = FloatVector.fromMemorySegment(S, rhs, r, LE);
            FloatVector v1 = FloatVector.fromMemorySegment(S, rhs, r + 32, LE);
            FloatVector v2 = FloatVector.fromMemorySegment(S, rhs, r + 64, LE);
            FloatVector v3 = FloatVector.fromMemorySegment(S, rhs, r + 96, LE);
            FloatVector e01 = even.selectFrom(v0, v1);
            FloatVector e23 = even.selectFrom(v2, v3);
            FloatVector o01 = odd.selectFrom(v0, v1);
            FloatVector o23 = odd.selectFrom(v2, v3);
            acc = acc.add(low.selectFrom(e01, e23).mul(lhs.get(F32, l)))
                    .add(high.selectFrom(e01, e23).mul(lhs.get(F32, l + 4)))
                    .add(low.selectFrom(o01, o23).mul(lhs.get(F32, l + 8)))
                    .add(high.selectFrom(o01, o23).mul(lhs.get(F32, l + 12)));
        }
        acc.intoMemorySegment(out, o, LE);
    }

    /**
     * Stages {@code steps} RHS steps {@code rhs[8][4]} (128 bytes apart from {@code r}) as
     * {@code b[4][8]} from {@code at}: the in-register transpose, then plain stores.
     */
    private static void transposeSteps(MemorySegment rhs, long r, int steps, float[] b, int at) {
        FloatVector even = EVEN;
        FloatVector odd = ODD;
        FloatVector low = LOW;
        FloatVector high = HIGH;
        for (int kk = 0; kk < steps; kk++) {
            long from = r + STEP * kk;
            FloatVector v0 = FloatVector.fromMemorySegment(S, rhs, from, LE);
            FloatVector v1 = FloatVector.fromMemorySegment(S, rhs, from + 32, LE);
            FloatVector v2 = FloatVector.fromMemorySegment(S, rhs, from + 64, LE);
            FloatVector v3 = FloatVector.fromMemorySegment(S, rhs, from + 96, LE);
            FloatVector e01 = even.selectFrom(v0, v1);
            FloatVector e23 = even.selectFrom(v2, v3);
            FloatVector o01 = odd.selectFrom(v0, v1);
            FloatVector o23 = odd.selectFrom(v2, v3);
            int to = at + 32 * kk;
            low.selectFrom(e01, e23).intoArray(b, to);
            high.selectFrom(e01, e23).intoArray(b, to + 8);
            low.selectFrom(o01, o23).intoArray(b, to + 16);
            high.selectFrom(o01, o23).intoArray(b, to + 24);
        }
    }

    /**
     * Any N0 that is a multiple of 8: the RHS staged as {@code [N][K][K0][N0]} (N0 = 8, K0 = 4
     * by the vector transpose, others element by element), the LHS row of tiles copied to the
     * heap, rows in blocks of four.
     */
    private static void staged(Mmt4d.Scratch scratch, MemorySegment lhs, long lhsBase, long lhsStride,
            MemorySegment rhs, long rhsBase, long rhsStride, MemorySegment out, long outBase, long outStride,
            int m, int n, int k, int m0, int n0, int k0, boolean accumulate) {
        int panel = k * k0 * n0;
        float[] b = scratch.rhsPanel(n * panel);
        for (int j = 0; j < n; j++) {
            long rp = rhsBase + 4L * j * rhsStride;
            int base = j * panel;
            if (n0 == 8 && k0 == 4) {
                transposeSteps(rhs, rp, k, b, base);
                continue;
            }
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
                        stagedRows4(a, b, bBase + c, out, tileOut + 4L * (i0 * n0 + c), i0, k, m0, n0, k0,
                                accumulate);
                    }
                    for (; i0 < m0; i0++) {
                        stagedRow1(a, b, bBase + c, out, tileOut + 4L * (i0 * n0 + c), i0, k, m0, n0, k0, accumulate);
                    }
                }
            }
        }
    }

    private static void stagedRows4(float[] a, float[] b, int bOffset, MemorySegment out,
            long o, int i0, int k, int m0, int n0, int k0, boolean accumulate) {
        long stride = 4L * n0;
        FloatVector acc0 = accumulate ? FloatVector.fromMemorySegment(S, out, o, LE) : FloatVector.zero(S);
        FloatVector acc1 = accumulate ? FloatVector.fromMemorySegment(S, out, o + stride, LE) : FloatVector.zero(S);
        FloatVector acc2 = accumulate ? FloatVector.fromMemorySegment(S, out, o + 2 * stride, LE) : FloatVector.zero(S);
        FloatVector acc3 = accumulate ? FloatVector.fromMemorySegment(S, out, o + 3 * stride, LE) : FloatVector.zero(S);
        for (int kk = 0; kk < k; kk++) {
            int aRow = (kk * m0 + i0) * k0;
            int bRow = bOffset + kk * k0 * n0;
            for (int kz = 0; kz < k0; kz++) {
                FloatVector v = FloatVector.fromArray(S, b, bRow + kz * n0);
                acc0 = acc0.add(v.mul(a[aRow + kz]));
                acc1 = acc1.add(v.mul(a[aRow + k0 + kz]));
                acc2 = acc2.add(v.mul(a[aRow + 2 * k0 + kz]));
                acc3 = acc3.add(v.mul(a[aRow + 3 * k0 + kz]));
            }
        }
        acc0.intoMemorySegment(out, o, LE);
        acc1.intoMemorySegment(out, o + stride, LE);
        acc2.intoMemorySegment(out, o + 2 * stride, LE);
        acc3.intoMemorySegment(out, o + 3 * stride, LE);
    }

    private static void stagedRow1(float[] a, float[] b, int bOffset, MemorySegment out,
            long o, int i0, int k, int m0, int n0, int k0, boolean accumulate) {
        FloatVector acc = accumulate ? FloatVector.fromMemorySegment(S, out, o, LE) : FloatVector.zero(S);
        for (int kk = 0; kk < k; kk++) {
            int aRow = (kk * m0 + i0) * k0;
            int bRow = bOffset + kk * k0 * n0;
            for (int kz = 0; kz < k0; kz++) {
                acc = acc.add(FloatVector.fromArray(S, b, bRow + kz * n0).mul(a[aRow + kz]));
            }
        }
        acc.intoMemorySegment(out, o, LE);
    }
}
