package dev.ortho.vm.internal.ext;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The f32 erf ({@link VmMath#erf(float)}, a table of Taylor polynomials) gives the same bits as
 * the f64 erf rounded to f32, which it replaced in {@code vm.erf.f32}.
 */
class VmMathErfTest {
    private static void same(float x) {
        assertEquals(Float.floatToRawIntBits((float) VmMath.erf((double) x)), Float.floatToRawIntBits(VmMath.erf(x)),
                () -> "erf(" + x + ") = " + VmMath.erf(x) + ", f64 erf rounded: " + (float) VmMath.erf((double) x));
    }

    @Test
    void specialValuesAndIntervalEdges() {
        for (float x : new float[] {0f, -0f, Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL, 1e-30f, 1e-10f,
            1e-5f, 0.0625f, Math.nextDown(0.0625f), 0.5f, 1f, 2f, 3.9f, Math.nextDown(4f), 4f, 5f, 100f,
            Float.MAX_VALUE, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN}) {
            same(x);
            same(-x);
        }
        for (int k = 1; k <= 64; k++) {
            float edge = k / 16f;
            same(edge);
            same(Math.nextDown(edge));
            same(-edge);
        }
    }

    @Test
    void sampleOfEveryBinadeBelowFour() {
        // Every 97th f32 from 2^-20 to 4, and 300,000 uniform draws on (-4, 4).
        for (int bits = Float.floatToRawIntBits(0x1p-20f); bits < Float.floatToRawIntBits(4f); bits += 97) {
            same(Float.intBitsToFloat(bits));
        }
        SplittableRandom random = new SplittableRandom(16);
        for (int n = 0; n < 300_000; n++) {
            same((float) random.nextDouble(-4, 4));
        }
    }
}
