package dev.ortho.hal.cpu.internal.builtin;

import static dev.ortho.hal.cpu.internal.builtin.BuiltinKernels.F32;

import dev.ortho.hal.cpu.kernel.DispatchState;
import dev.ortho.hal.cpu.kernel.Kernel;
import dev.ortho.hal.cpu.kernel.WorkgroupState;
import java.lang.foreign.MemorySegment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The builtin {@code matmul_f32} kernel: one output tile of row-major {@code C = A · B} per
 * workgroup (see {@link BuiltinKernels}). {@link #select()} picks the Vector API microkernel
 * ({@link VectorMatmulF32}) when {@code jdk.incubator.vector} is available, else this class's
 * scalar body: i-k-j order so the innermost loop streams a row of B and of C, K blocked so the
 * touched rows of B stay in cache across the tile's rows. Stateless; allocates nothing.
 */
final class MatmulF32 {
    private static final Logger LOG = LoggerFactory.getLogger(MatmulF32.class);
    /** Static workgroup local memory of {@code matmul_f32}: the vector kernel's packed B panel (256 × 32 floats). */
    static final int LOCAL_MEMORY = 256 * 32 * 4;
    /** K block: 256 rows of a 32-column B tile are 32 KiB. */
    private static final int K_BLOCK = 256;

    private MatmulF32() {}

    /**
     * The fastest body this JVM can run: the Vector API kernel if the {@code jdk.incubator.vector}
     * module is present (JVM flag {@code --add-modules jdk.incubator.vector}; in OSGi the
     * framework must also export the package, which this bundle imports optionally) and its
     * preferred species has at least 4 lanes; otherwise the scalar kernel.
     */
    static Kernel select() {
        try {
            int lanes = VectorMatmulF32.lanes();
            if (lanes >= 4) {
                LOG.debug("matmul_f32 uses the Vector API kernel ({} f32 lanes)", lanes);
                return VectorMatmulF32::run;
            }
        } catch (LinkageError absent) {
            LOG.debug("jdk.incubator.vector is not available; matmul_f32 uses the scalar kernel: {}", absent.toString());
        }
        return MatmulF32::run;
    }

    /** The scalar kernel. */
    static void run(DispatchState dispatch, WorkgroupState workgroup) {
        long m = Integer.toUnsignedLong(dispatch.constant(0));
        long n = Integer.toUnsignedLong(dispatch.constant(1));
        long k = Integer.toUnsignedLong(dispatch.constant(2));
        MemorySegment a = dispatch.requireBinding(0, bytes(m, k));
        MemorySegment b = dispatch.requireBinding(1, bytes(k, n));
        MemorySegment c = dispatch.requireBinding(2, bytes(m, n));
        long col0 = (long) workgroup.workgroupIdX() * dispatch.workgroupSizeX();
        long row0 = (long) workgroup.workgroupIdY() * dispatch.workgroupSizeY();
        long col1 = Math.min(n, col0 + dispatch.workgroupSizeX());
        long row1 = Math.min(m, row0 + dispatch.workgroupSizeY());
        for (long i = row0; i < row1; i++) {
            for (long j = col0; j < col1; j++) {
                c.setAtIndex(F32, i * n + j, 0f);
            }
        }
        for (long kk = 0; kk < k; kk += K_BLOCK) {
            long kEnd = Math.min(k, kk + K_BLOCK);
            for (long i = row0; i < row1; i++) {
                long cRow = i * n;
                for (long p = kk; p < kEnd; p++) {
                    float aip = a.getAtIndex(F32, i * k + p);
                    long bRow = p * n;
                    for (long j = col0; j < col1; j++) {
                        c.setAtIndex(F32, cRow + j, c.getAtIndex(F32, cRow + j) + aip * b.getAtIndex(F32, bRow + j));
                    }
                }
            }
        }
    }

    /** Bytes of an {@code rows × cols} f32 matrix, or -1 (rejected by requireBinding) on overflow. */
    static long bytes(long rows, long cols) {
        long elements = rows * cols;
        boolean overflow = rows != 0 && (elements / rows != cols || elements > Long.MAX_VALUE / 4);
        return overflow ? -1 : elements * 4;
    }
}
