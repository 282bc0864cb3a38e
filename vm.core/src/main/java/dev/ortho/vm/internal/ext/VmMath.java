package dev.ortho.vm.internal.ext;

/**
 * IREE's floating-point numerics ({@code vm/ops.h}) in Java: C rounding functions
 * ({@code lroundf}, {@code llround}, {@code roundf}), unsigned conversions, {@code erf} and the
 * float-precision transcendental functions. Stateless.
 */
public final class VmMath {
    private static final double TWO_OVER_SQRT_PI = 1.1283791670955126;
    private static final double TWO_POW_63 = 9.223372036854775808E18;

    private VmMath() {
    }

    /** C {@code round}: nearest integer, halfway cases away from zero (exact for every double). */
    public static double roundHalfAway(double x) {
        if (Double.isNaN(x) || Double.isInfinite(x)) {
            return x;
        }
        double a = Math.abs(x);
        double r = Math.floor(a);
        if (a - r >= 0.5) {
            r += 1.0;
        }
        return Math.copySign(r, x);
    }

    /** C {@code roundf}. */
    public static float roundHalfAway(float x) {
        return (float) roundHalfAway((double) x);
    }

    /** {@code (int32_t)lroundf(x)}: rounded half away, converted (saturating like Java) and truncated to 32 bits. */
    public static int lroundfToI32(float x) {
        return (int) (long) roundHalfAway((double) x);
    }

    /** {@code (int64_t)llroundf(x)}. */
    public static long llroundf(float x) {
        return (long) roundHalfAway((double) x);
    }

    /** {@code (int64_t)llround(x)}. */
    public static long llround(double x) {
        return (long) roundHalfAway(x);
    }

    /** {@code (uint64_t)x} for a non-negative double; values below zero wrap like the signed conversion. */
    public static long doubleToU64(double x) {
        if (x >= TWO_POW_63) {
            return (long) (x - TWO_POW_63) ^ Long.MIN_VALUE;
        }
        return (long) x;
    }

    /** {@code (float)(uint64_t)v}, correctly rounded. */
    public static float u64ToF32(long v) {
        if (v >= 0) {
            return (float) v;
        }
        // Halve keeping the sticky bit so the final rounding is the same as rounding the full value.
        return (float) ((v >>> 1) | (v & 1)) * 2.0f;
    }

    /** {@code (double)(uint64_t)v}, correctly rounded. */
    public static double u64ToF64(long v) {
        if (v >= 0) {
            return (double) v;
        }
        return (double) ((v >>> 1) | (v & 1)) * 2.0;
    }

    /**
     * {@code vm.fpowi.f32} as IREE's runtime computes it: the compiler builtin {@code powif},
     * whose exponent is a C {@code int} (the i64 operand truncated to its low 32 bits), by
     * binary exponentiation in f32 with the reciprocal taken last for negative exponents.
     */
    public static float powi(float base, long exponent) {
        int e = (int) exponent;
        boolean reciprocal = e < 0;
        float result = 1f;
        float a = base;
        while (true) {
            if ((e & 1) != 0) {
                result *= a;
            }
            e /= 2;
            if (e == 0) {
                break;
            }
            a *= a;
        }
        return reciprocal ? 1f / result : result;
    }

    /** {@code vm.fpowi.f64}: {@link #powi(float, long)} in f64 (the builtin {@code powi}). */
    public static double powi(double base, long exponent) {
        int e = (int) exponent;
        boolean reciprocal = e < 0;
        double result = 1d;
        double a = base;
        while (true) {
            if ((e & 1) != 0) {
                result *= a;
            }
            e /= 2;
            if (e == 0) {
                break;
            }
            a *= a;
        }
        return reciprocal ? 1d / result : result;
    }

    /** C {@code roundeven}: nearest integer, halfway cases to even. */
    public static double roundEven(double x) {
        return Math.rint(x);
    }

    /** C {@code remainder}: IEEE remainder, the quotient rounded to nearest even. */
    public static double remainder(double x, double y) {
        return Math.IEEEremainder(x, y);
    }

    /**
     * The error function. Below 1.5 from the everywhere-convergent series with only positive
     * terms {@code erf(x) = 2/sqrt(pi) * exp(-x^2) * sum_n (2x^2)^n x / (1*3*...*(2n+1))} (no
     * cancellation); above, as {@code 1 - erfc(x)} with erfc from its continued fraction (Lentz),
     * whose small absolute error vanishes against 1. Accurate to about an ulp.
     */
    public static double erf(double x) {
        if (Double.isNaN(x)) {
            return x;
        }
        double a = Math.abs(x);
        if (a >= 6.0) {
            return Math.copySign(1.0, x);
        }
        if (a < 1e-10) {
            return TWO_OVER_SQRT_PI * x;
        }
        double x2 = a * a;
        if (a < 1.5) {
            double term = a;
            double sum = a;
            for (int n = 1; n < 200; n++) {
                term *= 2.0 * x2 / (2 * n + 1);
                double next = sum + term;
                if (next == sum) {
                    break;
                }
                sum = next;
            }
            return Math.copySign(TWO_OVER_SQRT_PI * Math.exp(-x2) * sum, x);
        }
        double tiny = 1e-300;
        double f = a;
        double c = a;
        double d = 0.0;
        for (int n = 1; n < 500; n++) {
            double an = n * 0.5;
            d = a + an * d;
            d = d == 0 ? 1 / tiny : 1 / d;
            c = a + an / c;
            if (c == 0) {
                c = tiny;
            }
            double delta = c * d;
            f *= delta;
            if (Math.abs(delta - 1.0) < 1e-17) {
                break;
            }
        }
        double erfc = Math.exp(-x2) / (SQRT_PI * f);
        return Math.copySign(1.0 - erfc, x);
    }

    private static final double SQRT_PI = 1.7724538509055159;

    /** {@code exp2}. */
    public static double exp2(double x) {
        return Math.pow(2.0, x);
    }

    /**
     * {@code log2}: the binary exponent plus the logarithm of the mantissa scaled into
     * [sqrt(1/2), sqrt(2)), so the rounding error stays relative to the small fractional part
     * (exact for powers of two, correctly rounded for the values IREE's suite checks).
     */
    public static double log2(double x) {
        if (!(x > 0) || Double.isInfinite(x)) {
            return Math.log(x) / LN2;
        }
        int e = Math.getExponent(x);
        if (e < Double.MIN_EXPONENT) {
            // subnormal: scale up into the normal range first
            return log2(x * 0x1p54) - 54;
        }
        double m = Math.scalb(x, -e);
        if (m > SQRT2) {
            m *= 0.5;
            e++;
        }
        return e + Math.log1p(m - 1.0) / LN2;
    }

    private static final double LN2 = 0.6931471805599453;
    private static final double SQRT2 = 1.4142135623730951;
}
