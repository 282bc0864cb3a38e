package dev.ortho.hal.cpu.internal.builtin;

import static dev.ortho.hal.cpu.internal.builtin.BuiltinKernels.F32;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.cpu.kernel.DispatchState;
import dev.ortho.hal.cpu.kernel.Kernel;
import dev.ortho.hal.cpu.kernel.WorkgroupState;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The vector and scalar matmul bodies against a double-precision reference, on ragged shapes. */
class MatmulF32Test {

    @Test
    void theVectorKernelIsSelectedWhenTheModuleIsPresent() {
        // surefire runs with --add-modules jdk.incubator.vector (root pom ortho.jvm.flags)
        assertTrue(ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent());
        assertTrue(VectorMatmulF32.lanes() >= 4, "lanes " + VectorMatmulF32.lanes());
    }

    @ParameterizedTest
    @CsvSource({"1, 1, 1", "8, 32, 16", "37, 45, 300", "64, 64, 513", "5, 100, 7", "33, 31, 0"})
    void bothBodiesMatchTheReference(int m, int n, int k) {
        compare(VectorMatmulF32::run, m, n, k, 32, 32, MatmulF32.LOCAL_MEMORY); // packed B panel
        compare(VectorMatmulF32::run, m, n, k, 32, 32, 0); // B read in place
        compare(MatmulF32::run, m, n, k, 32, 32, 0);
        compare(VectorMatmulF32::run, m, n, k, 48, 16, MatmulF32.LOCAL_MEMORY); // tiles not multiples of the blocks
    }

    @Test
    void shortBindingsAreOutOfRange() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment small = arena.allocate(16);
            DispatchState state = new DispatchState(new int[] {32, 32, 1}, new int[] {1, 1, 1},
                    new int[] {8, 8, 8}, new MemorySegment[] {small, small, small}, 1);
            StatusException e = assertThrows(StatusException.class,
                    () -> VectorMatmulF32.run(state, new WorkgroupState(0, MemorySegment.NULL)));
            assertEquals(StatusCode.OUT_OF_RANGE, e.code());
        }
    }

    private static void compare(Kernel kernel, int m, int n, int k, int tileX, int tileY, int localBytes) {
        Random random = new Random(m * 31L + n * 7L + k);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(Math.max(4, 4L * m * k));
            MemorySegment b = arena.allocate(Math.max(4, 4L * k * n));
            MemorySegment c = arena.allocate(Math.max(4, 4L * m * n));
            for (long i = 0; i < (long) m * k; i++) {
                a.setAtIndex(F32, i, random.nextFloat() - 0.5f);
            }
            for (long i = 0; i < (long) k * n; i++) {
                b.setAtIndex(F32, i, random.nextFloat() - 0.5f);
            }
            for (long i = 0; i < (long) m * n; i++) {
                c.setAtIndex(F32, i, Float.NaN); // every element must be written
            }
            int gx = (n + tileX - 1) / tileX;
            int gy = (m + tileY - 1) / tileY;
            DispatchState state = new DispatchState(new int[] {tileX, tileY, 1}, new int[] {gx, gy, 1},
                    new int[] {m, n, k}, new MemorySegment[] {a, b, c}, 1);
            WorkgroupState workgroup = new WorkgroupState(0,
                    localBytes == 0 ? MemorySegment.NULL : arena.allocate(localBytes, 64));
            for (int y = 0; y < gy; y++) {
                for (int x = 0; x < gx; x++) {
                    workgroup.moveTo(x, y, 0);
                    kernel.run(state, workgroup);
                }
            }
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    double expected = 0;
                    for (int p = 0; p < k; p++) {
                        expected += (double) a.getAtIndex(F32, (long) i * k + p) * b.getAtIndex(F32, (long) p * n + j);
                    }
                    float actual = c.getAtIndex(F32, (long) i * n + j);
                    assertEquals(expected, actual, 1e-4 * Math.max(1, k), "C[" + i + "][" + j + "] of " + m + "x" + n
                            + "x" + k);
                }
            }
        }
    }
}
