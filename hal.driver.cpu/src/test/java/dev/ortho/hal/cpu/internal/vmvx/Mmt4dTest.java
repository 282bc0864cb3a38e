package dev.ortho.hal.cpu.internal.vmvx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The f32 mmt4d kernel actually selected on this JVM (the Vector API ones when available) gives
 * bit-identical results to the scalar reference kernel (IREE's generic summation order) on
 * assorted tile shapes, strides, offsets and accumulation, including the N0 = 8, K0 = 4 tiles
 * IREE's compiler gives VMVX with M0 = 1 (groups of four tiles and a remainder) and M0 = 8, 4, 2.
 */
class Mmt4dTest {
    @Test
    void selectedKernelMatchesTheScalarKernel() {
        Random random = new Random(4);
        int[][] shapes = { // m, n, k, m0, n0, k0
            {1, 1, 1, 1, 8, 1}, {3, 2, 5, 8, 8, 4}, {2, 3, 4, 5, 16, 2}, {4, 1, 7, 9, 8, 3}, {2, 2, 3, 4, 4, 4},
            {1, 5, 2, 3, 24, 1}, {3, 3, 0, 8, 8, 4}, {1, 16, 196, 1, 8, 4}, {2, 7, 9, 1, 8, 4},
            {2, 3, 16, 8, 8, 4}, {1, 2, 5, 12, 8, 4}, {2, 2, 3, 2, 8, 4}, {1, 1, 1, 1, 8, 4}};
        try (Arena arena = Arena.ofConfined()) {
            for (int[] s : shapes) {
                int m = s[0], n = s[1], k = s[2], m0 = s[3], n0 = s[4], k0 = s[5];
                long lhsStride = (long) k * m0 * k0 + 3; // padded rows
                long rhsStride = (long) k * n0 * k0 + 5;
                long outStride = (long) n * m0 * n0 + 2;
                MemorySegment lhs = fill(arena.allocate(4 * (m * lhsStride + 1)), random);
                MemorySegment rhs = fill(arena.allocate(4 * (n * rhsStride + 1)), random);
                for (boolean accumulate : new boolean[] {false, true}) {
                    MemorySegment expected = fill(arena.allocate(4 * (m * outStride + 1)), random);
                    MemorySegment actual = arena.allocate(expected.byteSize());
                    actual.copyFrom(expected);
                    Mmt4d.f32Scalar(new Mmt4d.Scratch(), lhs, 4, lhsStride, rhs, 4, rhsStride, expected, 4, outStride,
                            m, n, k, m0, n0, k0, accumulate);
                    Mmt4d.f32(new Mmt4d.Scratch(), lhs, 4, lhsStride, rhs, 4, rhsStride, actual, 4, outStride,
                            m, n, k, m0, n0, k0, accumulate);
                    for (long i = 0; i < expected.byteSize() / 4; i++) {
                        float e = expected.getAtIndex(Elementwise.F32, i);
                        assertEquals(Float.floatToRawIntBits(e), Float.floatToRawIntBits(actual.getAtIndex(Elementwise.F32, i)),
                                "shape " + java.util.Arrays.toString(s) + " accumulate " + accumulate + " element " + i
                                + ": expected " + e + ", got " + actual.getAtIndex(Elementwise.F32, i));
                    }
                }
            }
        }
    }

    private static MemorySegment fill(MemorySegment segment, Random random) {
        for (long i = 0; i < segment.byteSize() / 4; i++) {
            segment.setAtIndex(Elementwise.F32, i, random.nextFloat() * 2 - 1);
        }
        return segment;
    }
}
