package dev.ortho.hal.text;

/**
 * Conversions between f32 and the narrow float formats with IREE's semantics
 * ({@code iree/base/internal/math.h}): round to nearest even, f32 subnormals flush to zero in
 * every format with fewer exponent bits (all but bf16), overflow to infinity where the format
 * has one and otherwise to NaN, NaN kept as the format's NaN (negative zero in the FNUZ formats).
 *
 * <p>Stateless and thread-safe.
 */
final class SmallFloats {
    /** A narrow float format: exponent and mantissa widths and its special-value rules. */
    record Format(int expBits, int mantissaBits, boolean hasInfinity, boolean hasNan,
                  int biasTweak, boolean nanIsNegativeZero) {

        int signMask() {
            return 1 << (expBits + mantissaBits);
        }

        int expMask() {
            return signMask() - (1 << mantissaBits);
        }

        int mantissaMask() {
            return (1 << mantissaBits) - 1;
        }

        int bias() {
            return biasTweak + (1 << (expBits - 1)) - 1;
        }
    }

    static final Format F16 = new Format(5, 10, true, true, 0, false);
    static final Format BF16 = new Format(8, 7, true, true, 0, false);
    static final Format F8E5M2 = new Format(5, 2, true, true, 0, false);
    static final Format F8E4M3FN = new Format(4, 3, false, true, 0, false);
    static final Format F8E5M2FNUZ = new Format(5, 2, false, true, 1, true);
    static final Format F8E4M3FNUZ = new Format(4, 3, false, true, 1, true);

    private static final int F32_MANTISSA_BITS = 23;
    private static final int F32_MANTISSA_MASK = (1 << F32_MANTISSA_BITS) - 1;
    private static final int F32_EXP_MASK = 0x7F800000;
    private static final int F32_BIAS = 127;

    private SmallFloats() {
    }

    /** Widens {@code bits} (the low 1 + exp + mantissa bits) of format {@code f} to f32. */
    static float toFloat(int bits, Format f) {
        float sign = (bits & f.signMask()) != 0 ? -1f : 1f;
        int exp = bits & f.expMask();
        int mantissa = bits & f.mantissaMask();
        if (exp == f.expMask()) {
            if (f.hasInfinity()) {
                return f.hasNan() && mantissa != 0 ? Float.NaN : sign * Float.POSITIVE_INFINITY;
            }
            if (f.hasNan() && mantissa == f.mantissaMask() && !f.nanIsNegativeZero()) {
                return Float.NaN;
            }
        } else if (f.hasNan() && f.nanIsNegativeZero() && bits == f.signMask()) {
            return Float.NaN;
        } else if (exp == 0) {
            return sign * Math.scalb((float) mantissa, 1 - f.bias() - f.mantissaBits());
        }
        int unbiased = (exp >> f.mantissaBits()) - f.bias() - f.mantissaBits();
        return sign * Math.scalb((float) (mantissa + (1 << f.mantissaBits())), unbiased);
    }

    /** Narrows {@code value} to format {@code f}, rounding to nearest even. */
    static int fromFloat(float value, Format f) {
        int raw = Float.floatToRawIntBits(value);
        int sign = (raw >>> 31) << (f.expBits() + f.mantissaBits());
        int f32Exp = raw & F32_EXP_MASK;
        int f32Mantissa = raw & F32_MANTISSA_MASK;
        int exp = 0;
        int mantissa = 0;
        boolean nan = false;
        boolean inf = false;
        if (f32Exp == F32_EXP_MASK) {
            nan = f32Mantissa != 0;
            inf = !nan;
        } else if (f32Exp == 0) {
            if (f.expBits() == 8) {
                // Only bf16 keeps the f32 exponent range: its subnormals survive, shifted.
                int shift = F32_MANTISSA_BITS - f.mantissaBits();
                mantissa = roundingBias(f32Mantissa, shift) >>> shift;
            }
        } else {
            int unbiased = (f32Exp >>> F32_MANTISSA_BITS) - F32_BIAS;
            if (unbiased > (1 << (f.expBits() - 1)) - (f.hasInfinity() ? 1 : 0)) {
                inf = true;
            } else if (unbiased + f.bias() <= 0) {
                // Becomes a subnormal of the narrow format (or zero).
                int shift = F32_MANTISSA_BITS - f.mantissaBits() - unbiased + (1 - f.bias());
                if (shift >= 0 && shift <= F32_MANTISSA_BITS) {
                    int withImplicitOne = (1 << F32_MANTISSA_BITS) + f32Mantissa;
                    mantissa = roundingBias(withImplicitOne, shift) >>> shift;
                }
            } else {
                int shift = F32_MANTISSA_BITS - f.mantissaBits();
                int biased = roundingBias(f32Mantissa, shift);
                if (biased > F32_MANTISSA_MASK) {
                    // Rounding carried into the exponent.
                    biased = 0;
                    unbiased++;
                }
                exp = (unbiased + f.bias()) << f.mantissaBits();
                mantissa = biased >>> shift;
                nan = !f.hasInfinity() && exp > f.expMask();
            }
        }
        if (inf) {
            if (f.hasInfinity()) {
                return sign | f.expMask();
            }
            if (!f.hasNan()) {
                return sign | f.expMask() | f.mantissaMask();
            }
            nan = true;
        }
        if (nan) {
            if (!f.hasNan()) {
                return 0;
            }
            return f.nanIsNegativeZero() ? f.signMask() : sign | f.expMask() | f.mantissaMask();
        }
        if (f.nanIsNegativeZero() && exp == 0 && mantissa == 0) {
            return 0; // negative zero would read back as NaN
        }
        return sign | exp | mantissa;
    }

    /** Adds the bias that makes a right shift by {@code shift} round to nearest even. */
    private static int roundingBias(int input, int shift) {
        int evenBit = 1 << shift;
        int halfBit = evenBit >>> 1;
        return input + ((input & evenBit) != 0 ? halfBit : halfBit - 1);
    }

    /** Widens an f8E8M0FNU scale: {@code 2^(bits - 127)}, 0xFF is NaN. */
    static float e8m0ToFloat(int bits) {
        return bits == 0xFF ? Float.NaN : Math.scalb(1f, bits - 127);
    }

    /** Narrows to f8E8M0FNU: nearest power of two, non-positive to 0, non-finite to NaN. */
    static int floatToE8m0(float value) {
        if (!Float.isFinite(value)) {
            return 0xFF;
        }
        if (value <= 0f) {
            return 0;
        }
        // frexp: value = m * 2^e with m in [0.5, 1); f32 subnormals count their leading zeros.
        int e = value >= Float.MIN_NORMAL ? Math.getExponent(value) + 1
                : Float.MIN_EXPONENT + 9 - Integer.numberOfLeadingZeros(Float.floatToRawIntBits(value));
        float m = Math.scalb(value, -e);
        int biased = e - (m < 0.75f ? 1 : 0) + 127;
        return Math.max(0, Math.min(0xFF, biased));
    }
}
