package dev.ortho.hal.cpu.internal.vmvx;

import static dev.ortho.hal.cpu.internal.vmvx.Elementwise.F32;
import static dev.ortho.hal.cpu.internal.vmvx.Elementwise.I32;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * IREE's {@code mmt4d} ukernel: {@code out[M][N][M0][N0] (+)= lhs[M][K][M0][K0] · rhs[N][K][N0][K0]ᵀ}
 * over tiled row-major operands whose outermost dimension has a stride (in elements) and whose
 * inner three are contiguous. Every output element sums its products in IREE's order (k, then
 * k0), so results equal the generic C tile function's.
 *
 * <p>The f32 path stages the RHS in {@link Scratch} so that the innermost loop is a contiguous
 * multiply-add over a whole row of output tiles, which C2 vectorises, and accumulates that row in
 * a heap array. Operands are checked by the caller. Not thread-safe per scratch (one per VM
 * context, i.e. per worker).
 */
final class Mmt4d {
    private Mmt4d() {}

    /** Per-context buffers reused by every call; grown on demand, never shrunk. */
    static final class Scratch {
        private float[] rhsPanel = new float[0];
        private float[] accF32 = new float[0];

        float[] rhsPanel(int length) {
            if (rhsPanel.length < length) {
                rhsPanel = grow(length);
            }
            return rhsPanel;
        }

        float[] accF32(int length) {
            if (accF32.length < length) {
                accF32 = grow(length);
            }
            return accF32;
        }

        private static float[] grow(int length) {
            try {
                return new float[length];
            } catch (OutOfMemoryError e) {
                throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, "vmvx: mmt4d cannot stage " + length
                        + " f32 elements on the Java heap", e);
            }
        }
    }

    /**
     * f32 · f32 → f32; bases in bytes, strides in elements. The whole RHS is staged once as
     * {@code panel[k][k0][N][N0]}, so that for one LHS element the update of a full output row of
     * tiles ({@code N·N0} lanes) is one contiguous multiply-add loop.
     */
    static void f32(Scratch scratch, MemorySegment lhs, long lhsBase, long lhsStride, MemorySegment rhs, long rhsBase,
            long rhsStride, MemorySegment out, long outBase, long outStride, int m, int n, int k, int m0, int n0,
            int k0, boolean accumulate) {
        int row = n * n0;
        float[] panel = scratch.rhsPanel(k * k0 * row);
        float[] acc = scratch.accF32(m0 * row);
        for (int j = 0; j < n; j++) {
            long rp = rhsBase + 4L * j * rhsStride;
            for (int kk = 0; kk < k; kk++) {
                for (int j0 = 0; j0 < n0; j0++) {
                    long src = rp + 4L * ((long) (kk * n0 + j0) * k0);
                    int dst = kk * k0 * row + j * n0 + j0;
                    for (int kz = 0; kz < k0; kz++) {
                        panel[dst + kz * row] = rhs.get(F32, src + 4L * kz);
                    }
                }
            }
        }
        int tile = m0 * n0;
        for (int i = 0; i < m; i++) {
            long lp = lhsBase + 4L * i * lhsStride;
            long op = outBase + 4L * i * outStride;
            for (int j = 0; j < n; j++) {
                for (int i0 = 0; i0 < m0; i0++) {
                    int at = i0 * row + j * n0;
                    long from = op + 4L * ((long) j * tile + (long) i0 * n0);
                    if (accumulate) {
                        MemorySegment.copy(out, F32, from, acc, at, n0);
                    } else {
                        Arrays.fill(acc, at, at + n0, 0f);
                    }
                }
            }
            for (int kk = 0; kk < k; kk++) {
                for (int kz = 0; kz < k0; kz++) {
                    int pb = (kk * k0 + kz) * row;
                    for (int i0 = 0; i0 < m0; i0++) {
                        float a = lhs.get(F32, lp + 4L * ((long) (kk * m0 + i0) * k0 + kz));
                        int ab = i0 * row;
                        for (int x = 0; x < row; x++) {
                            acc[ab + x] += a * panel[pb + x];
                        }
                    }
                }
            }
            for (int j = 0; j < n; j++) {
                for (int i0 = 0; i0 < m0; i0++) {
                    MemorySegment.copy(acc, i0 * row + j * n0, out, F32, op + 4L * ((long) j * tile + (long) i0 * n0), n0);
                }
            }
        }
    }

    /** s8 · s8 → s32; bases in bytes, strides in elements. */
    static void s8s8s32(MemorySegment lhs, long lhsBase, long lhsStride, MemorySegment rhs, long rhsBase,
            long rhsStride, MemorySegment out, long outBase, long outStride, int m, int n, int k, int m0, int n0,
            int k0, boolean accumulate) {
        for (int i = 0; i < m; i++) {
            long lp = lhsBase + (long) i * lhsStride;
            for (int j = 0; j < n; j++) {
                long rp = rhsBase + (long) j * rhsStride;
                long op = outBase + 4L * i * outStride + 4L * j * m0 * n0;
                for (int i0 = 0; i0 < m0; i0++) {
                    for (int j0 = 0; j0 < n0; j0++) {
                        long o = op + 4L * (i0 * n0 + j0);
                        int acc = accumulate ? out.get(I32, o) : 0;
                        for (int kk = 0; kk < k; kk++) {
                            long l = lp + (long) kk * m0 * k0 + (long) i0 * k0;
                            long r = rp + (long) kk * n0 * k0 + (long) j0 * k0;
                            for (int kz = 0; kz < k0; kz++) {
                                acc += lhs.get(ValueLayout.JAVA_BYTE, l + kz) * rhs.get(ValueLayout.JAVA_BYTE, r + kz);
                            }
                        }
                        out.set(I32, o, acc);
                    }
                }
            }
        }
    }
}
