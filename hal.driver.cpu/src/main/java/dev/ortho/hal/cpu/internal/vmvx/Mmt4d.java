package dev.ortho.hal.cpu.internal.vmvx;

import static dev.ortho.hal.cpu.internal.vmvx.Elementwise.F32;
import static dev.ortho.hal.cpu.internal.vmvx.Elementwise.I32;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * IREE's {@code mmt4d} ukernel: {@code out[M][N][M0][N0] (+)= lhs[M][K][M0][K0] · rhs[N][K][N0][K0]ᵀ}
 * over tiled row-major operands whose outermost dimension has a stride (in elements) and whose
 * inner three are contiguous. Every output element sums its products in IREE's order (k, then
 * k0, {@code acc += lhs * rhs} with a rounded multiply and a rounded add), so every kernel here,
 * scalar or vector, gives bit-identical results to IREE's generic C tile function (which is what
 * IREE runs for VMVX's N0 = 8, K0 = 4 tiles: its x86 tile functions take K0 = 1 only).
 *
 * <p>f32 runs the {@link VectorMmt4d} kernels when the Vector API is present and N0 is a
 * multiple of 8, else {@link #f32Scalar}. Operands are checked by the caller. Not thread-safe per
 * scratch (one per VM context, i.e. per worker).
 */
final class Mmt4d {
    private static final Logger LOG = LoggerFactory.getLogger(Mmt4d.class);
    /** Whether the Vector API tile kernel can run on this JVM and hardware. */
    private static final boolean VECTOR = probeVector();

    private Mmt4d() {}

    private static boolean probeVector() {
        try {
            boolean available = VectorMmt4d.available();
            LOG.debug("vmvx.mmt4d f32 {} the Vector API kernel", available ? "uses" : "does not use (no 256-bit vectors)");
            return available;
        } catch (LinkageError absent) {
            LOG.debug("jdk.incubator.vector is not available; vmvx.mmt4d f32 uses the scalar kernel: {}", absent.toString());
            return false;
        }
    }

    /** Per-context buffers reused by every call; grown on demand, never shrunk. */
    static final class Scratch {
        private float[] rhsPanel = new float[0];
        private float[] accF32 = new float[0];
        private float[] lhsPanel = new float[0];

        float[] rhsPanel(int length) {
            if (rhsPanel.length < length) {
                rhsPanel = grow(length);
            }
            return rhsPanel;
        }

        float[] lhsPanel(int length) {
            if (lhsPanel.length < length) {
                lhsPanel = grow(length);
            }
            return lhsPanel;
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
     * f32 · f32 → f32; bases in bytes, strides in elements: the {@link VectorMmt4d} kernel when it
     * applies, else {@link #f32Scalar}.
     */
    static void f32(Scratch scratch, MemorySegment lhs, long lhsBase, long lhsStride, MemorySegment rhs, long rhsBase,
            long rhsStride, MemorySegment out, long outBase, long outStride, int m, int n, int k, int m0, int n0,
            int k0, boolean accumulate) {
        if (VECTOR && VectorMmt4d.supports(n0)) {
            VectorMmt4d.f32(scratch, lhs, lhsBase, lhsStride, rhs, rhsBase, rhsStride, out, outBase, outStride, m, n, k,
                    m0, n0, k0, accumulate);
        } else {
            f32Scalar(scratch, lhs, lhsBase, lhsStride, rhs, rhsBase, rhsStride, out, outBase, outStride, m, n, k, m0,
                    n0, k0, accumulate);
        }
    }

    /**
     * The scalar f32 kernel (also the reference the vector kernel is tested against): the whole
     * RHS is staged once as {@code panel[k][k0][N][N0]}, so that for one LHS element the update of
     * a full output row of tiles ({@code N·N0} lanes) is one contiguous multiply-add loop, which C2
     * vectorises.
     */
    static void f32Scalar(Scratch scratch, MemorySegment lhs, long lhsBase, long lhsStride, MemorySegment rhs,
            long rhsBase, long rhsStride, MemorySegment out, long outBase, long outStride, int m, int n, int k, int m0,
            int n0, int k0, boolean accumulate) {
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
