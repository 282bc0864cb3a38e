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
 * <li>{@code N0 = 8, K0 = 4} (the tiles IREE's compiler gives VMVX; M0 = 1 for one-row matmuls,
 *     8 otherwise): no staging. Each RHS tile step {@code rhs[k][8][4]} is four vector loads
 *     transposed in registers by two rounds of two-table permutes
 *     ({@link FloatVector#selectFrom(jdk.incubator.vector.Vector, jdk.incubator.vector.Vector)})
 *     into one vector per {@code k0}. With M0 = 1, four output tiles advance together so their
 *     accumulators and the LHS broadcasts stay in registers; with M0 &gt; 1, blocks of eight or
 *     four rows share each transposed RHS step.</li>
 * <li>other N0 that are multiples of 8: the RHS is staged once per call in
 *     {@link Mmt4d.Scratch} as {@code [N][K][K0][N0]} so every load is contiguous, then rows are
 *     computed in blocks of four.</li>
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
        if (n0 == 8 && k0 == 4) {
            n8k4(lhs, lhsBase, 4 * lhsStride, rhs, rhsBase, 4 * rhsStride, out, outBase, 4 * outStride, m, n, k, m0,
                    accumulate);
        } else {
            staged(scratch, lhs, lhsBase, lhsStride, rhs, rhsBase, rhsStride, out, outBase, outStride, m, n, k, m0,
                    n0, k0, accumulate);
        }
    }

    /** N0 = 8, K0 = 4; strides in bytes. */
    private static void n8k4(MemorySegment lhs, long lhsBase, long lhsStride, MemorySegment rhs, long rhsBase,
            long rhsStride, MemorySegment out, long outBase, long outStride, int m, int n, int k, int m0,
            boolean accumulate) {
        long tileBytes = 4L * m0 * 8;
        for (int i = 0; i < m; i++) {
            long lp = lhsBase + i * lhsStride;
            long op = outBase + i * outStride;
            if (m0 == 1) {
                int j = 0;
                for (; j + 4 <= n; j += 4) {
                    m1Tiles4(lhs, lp, rhs, rhsBase + j * rhsStride, rhsStride, out, op + j * tileBytes, k, accumulate);
                }
                for (; j < n; j++) {
                    m1Tile(lhs, lp, rhs, rhsBase + j * rhsStride, out, op + j * tileBytes, k, accumulate);
                }
                continue;
            }
            for (int j = 0; j < n; j++) {
                long rp = rhsBase + j * rhsStride;
                long tile = op + j * tileBytes;
                int i0 = 0;
                for (; i0 + 8 <= m0; i0 += 8) {
                    rows8(lhs, lp + 16L * i0, 16L * m0, rhs, rp, out, tile + 32L * i0, k, accumulate);
                }
                for (; i0 + 4 <= m0; i0 += 4) {
                    rows4(lhs, lp + 16L * i0, 16L * m0, rhs, rp, out, tile + 32L * i0, k, accumulate);
                }
                for (; i0 < m0; i0++) {
                    m1Tile(lhs, lp + 16L * i0, 16L * m0, rhs, rp, out, tile + 32L * i0, k, accumulate);
                }
            }
        }
    }

    private static FloatVector load(MemorySegment segment, long offset) {
        return FloatVector.fromMemorySegment(S, segment, offset, LE);
    }

    private static FloatVector start(MemorySegment out, long offset, boolean accumulate) {
        return accumulate ? load(out, offset) : FloatVector.zero(S);
    }

    private static FloatVector lane(MemorySegment lhs, long offset) {
        return FloatVector.broadcast(S, lhs.get(F32, offset));
    }

    /**
     * One output row (M0 = 1) across four adjacent tiles {@code rhsStride} bytes apart; the LHS
     * step of {@code k0 = 0..3} is broadcast once for all four.
     */
    private static void m1Tiles4(MemorySegment lhs, long lp, MemorySegment rhs, long rp, long rhsStride,
            MemorySegment out, long o, int k, boolean accumulate) {
        FloatVector acc0 = start(out, o, accumulate);
        FloatVector acc1 = start(out, o + 32, accumulate);
        FloatVector acc2 = start(out, o + 64, accumulate);
        FloatVector acc3 = start(out, o + 96, accumulate);
        long r1 = rp + rhsStride;
        long r2 = r1 + rhsStride;
        long r3 = r2 + rhsStride;
        for (int kk = 0; kk < k; kk++) {
            long l = lp + 16L * kk;
            FloatVector a0 = lane(lhs, l);
            FloatVector a1 = lane(lhs, l + 4);
            FloatVector a2 = lane(lhs, l + 8);
            FloatVector a3 = lane(lhs, l + 12);
            long step = STEP * kk;
            acc0 = step(rhs, rp + step, acc0, a0, a1, a2, a3);
            acc1 = step(rhs, r1 + step, acc1, a0, a1, a2, a3);
            acc2 = step(rhs, r2 + step, acc2, a0, a1, a2, a3);
            acc3 = step(rhs, r3 + step, acc3, a0, a1, a2, a3);
        }
        acc0.intoMemorySegment(out, o, LE);
        acc1.intoMemorySegment(out, o + 32, LE);
        acc2.intoMemorySegment(out, o + 64, LE);
        acc3.intoMemorySegment(out, o + 96, LE);
    }

    /** {@code acc + c0·a0 + c1·a1 + c2·a2 + c3·a3} (in that order) for the RHS step at {@code r}. */
    private static FloatVector step(MemorySegment rhs, long r, FloatVector acc, FloatVector a0, FloatVector a1,
            FloatVector a2, FloatVector a3) {
        FloatVector v0 = load(rhs, r);
        FloatVector v1 = load(rhs, r + 32);
        FloatVector v2 = load(rhs, r + 64);
        FloatVector v3 = load(rhs, r + 96);
        FloatVector even01 = EVEN.selectFrom(v0, v1);
        FloatVector even23 = EVEN.selectFrom(v2, v3);
        FloatVector odd01 = ODD.selectFrom(v0, v1);
        FloatVector odd23 = ODD.selectFrom(v2, v3);
        acc = acc.add(LOW.selectFrom(even01, even23).mul(a0));
        acc = acc.add(HIGH.selectFrom(even01, even23).mul(a1));
        acc = acc.add(LOW.selectFrom(odd01, odd23).mul(a2));
        return acc.add(HIGH.selectFrom(odd01, odd23).mul(a3));
    }

    /** One tile row, M0 = 1: LHS steps 16 bytes apart. */
    private static void m1Tile(MemorySegment lhs, long lp, MemorySegment rhs, long rp, MemorySegment out, long o,
            int k, boolean accumulate) {
        m1Tile(lhs, lp, 16, rhs, rp, out, o, k, accumulate);
    }

    /** One tile row; its LHS steps (4 floats) {@code lhsStep} bytes apart. */
    private static void m1Tile(MemorySegment lhs, long lp, long lhsStep, MemorySegment rhs, long rp,
            MemorySegment out, long o, int k, boolean accumulate) {
        FloatVector acc = start(out, o, accumulate);
        for (int kk = 0; kk < k; kk++) {
            long l = lp + lhsStep * kk;
            acc = step(rhs, rp + STEP * kk, acc, lane(lhs, l), lane(lhs, l + 4), lane(lhs, l + 8), lane(lhs, l + 12));
        }
        acc.intoMemorySegment(out, o, LE);
    }

    /** Eight tile rows sharing each transposed RHS step; LHS steps {@code lhsStep} bytes apart. */
    private static void rows8(MemorySegment lhs, long lp, long lhsStep, MemorySegment rhs, long rp,
            MemorySegment out, long o, int k, boolean accumulate) {
        FloatVector acc0 = start(out, o, accumulate);
        FloatVector acc1 = start(out, o + 32, accumulate);
        FloatVector acc2 = start(out, o + 64, accumulate);
        FloatVector acc3 = start(out, o + 96, accumulate);
        FloatVector acc4 = start(out, o + 128, accumulate);
        FloatVector acc5 = start(out, o + 160, accumulate);
        FloatVector acc6 = start(out, o + 192, accumulate);
        FloatVector acc7 = start(out, o + 224, accumulate);
        for (int kk = 0; kk < k; kk++) {
            long r = rp + STEP * kk;
            FloatVector v0 = load(rhs, r);
            FloatVector v1 = load(rhs, r + 32);
            FloatVector v2 = load(rhs, r + 64);
            FloatVector v3 = load(rhs, r + 96);
            FloatVector even01 = EVEN.selectFrom(v0, v1);
            FloatVector even23 = EVEN.selectFrom(v2, v3);
            FloatVector odd01 = ODD.selectFrom(v0, v1);
            FloatVector odd23 = ODD.selectFrom(v2, v3);
            FloatVector c0 = LOW.selectFrom(even01, even23);
            FloatVector c1 = HIGH.selectFrom(even01, even23);
            FloatVector c2 = LOW.selectFrom(odd01, odd23);
            FloatVector c3 = HIGH.selectFrom(odd01, odd23);
            long l = lp + lhsStep * kk;
            acc0 = dot(lhs, l, acc0, c0, c1, c2, c3);
            acc1 = dot(lhs, l + 16, acc1, c0, c1, c2, c3);
            acc2 = dot(lhs, l + 32, acc2, c0, c1, c2, c3);
            acc3 = dot(lhs, l + 48, acc3, c0, c1, c2, c3);
            acc4 = dot(lhs, l + 64, acc4, c0, c1, c2, c3);
            acc5 = dot(lhs, l + 80, acc5, c0, c1, c2, c3);
            acc6 = dot(lhs, l + 96, acc6, c0, c1, c2, c3);
            acc7 = dot(lhs, l + 112, acc7, c0, c1, c2, c3);
        }
        acc0.intoMemorySegment(out, o, LE);
        acc1.intoMemorySegment(out, o + 32, LE);
        acc2.intoMemorySegment(out, o + 64, LE);
        acc3.intoMemorySegment(out, o + 96, LE);
        acc4.intoMemorySegment(out, o + 128, LE);
        acc5.intoMemorySegment(out, o + 160, LE);
        acc6.intoMemorySegment(out, o + 192, LE);
        acc7.intoMemorySegment(out, o + 224, LE);
    }

    /** Four tile rows sharing each transposed RHS step; LHS steps {@code lhsStep} bytes apart. */
    private static void rows4(MemorySegment lhs, long lp, long lhsStep, MemorySegment rhs, long rp,
            MemorySegment out, long o, int k, boolean accumulate) {
        FloatVector acc0 = start(out, o, accumulate);
        FloatVector acc1 = start(out, o + 32, accumulate);
        FloatVector acc2 = start(out, o + 64, accumulate);
        FloatVector acc3 = start(out, o + 96, accumulate);
        for (int kk = 0; kk < k; kk++) {
            long r = rp + STEP * kk;
            FloatVector v0 = load(rhs, r);
            FloatVector v1 = load(rhs, r + 32);
            FloatVector v2 = load(rhs, r + 64);
            FloatVector v3 = load(rhs, r + 96);
            FloatVector even01 = EVEN.selectFrom(v0, v1);
            FloatVector even23 = EVEN.selectFrom(v2, v3);
            FloatVector odd01 = ODD.selectFrom(v0, v1);
            FloatVector odd23 = ODD.selectFrom(v2, v3);
            FloatVector c0 = LOW.selectFrom(even01, even23);
            FloatVector c1 = HIGH.selectFrom(even01, even23);
            FloatVector c2 = LOW.selectFrom(odd01, odd23);
            FloatVector c3 = HIGH.selectFrom(odd01, odd23);
            long l = lp + lhsStep * kk;
            acc0 = dot(lhs, l, acc0, c0, c1, c2, c3);
            acc1 = dot(lhs, l + 16, acc1, c0, c1, c2, c3);
            acc2 = dot(lhs, l + 32, acc2, c0, c1, c2, c3);
            acc3 = dot(lhs, l + 48, acc3, c0, c1, c2, c3);
        }
        acc0.intoMemorySegment(out, o, LE);
        acc1.intoMemorySegment(out, o + 32, LE);
        acc2.intoMemorySegment(out, o + 64, LE);
        acc3.intoMemorySegment(out, o + 96, LE);
    }

    /** {@code acc + c0·lhs[l] + c1·lhs[l+4] + c2·lhs[l+8] + c3·lhs[l+12]} (byte offsets), in that order. */
    private static FloatVector dot(MemorySegment lhs, long l, FloatVector acc, FloatVector c0, FloatVector c1,
            FloatVector c2, FloatVector c3) {
        acc = acc.add(c0.mul(lane(lhs, l)));
        acc = acc.add(c1.mul(lane(lhs, l + 4)));
        acc = acc.add(c2.mul(lane(lhs, l + 8)));
        return acc.add(c3.mul(lane(lhs, l + 12)));
    }

    /**
     * Any N0 that is a multiple of 8: the RHS staged as {@code [N][K][K0][N0]}, the LHS row of
     * tiles copied to the heap, rows in blocks of four.
     */
    private static void staged(Mmt4d.Scratch scratch, MemorySegment lhs, long lhsBase, long lhsStride,
            MemorySegment rhs, long rhsBase, long rhsStride, MemorySegment out, long outBase, long outStride,
            int m, int n, int k, int m0, int n0, int k0, boolean accumulate) {
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
        FloatVector acc0 = start(out, o, accumulate);
        FloatVector acc1 = start(out, o + stride, accumulate);
        FloatVector acc2 = start(out, o + 2 * stride, accumulate);
        FloatVector acc3 = start(out, o + 3 * stride, accumulate);
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
        FloatVector acc = start(out, o, accumulate);
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
