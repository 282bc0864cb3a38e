package dev.ortho.vm.internal.ext;

/**
 * The single-precision C library functions IREE's VM calls ({@code vm/ops.h}) where the library
 * IREE runs on is not correctly rounded, so that a correctly rounded result
 * ({@code (float) Math.tanh(x)}) differs from IREE's in the last bit or two: here those computed
 * in float arithmetic, {@code tanhf}, {@code expm1f}, {@code erff}, {@code log1pf} and
 * {@code atanf} (differing from the correctly rounded result for about one argument in five,
 * {@code erff} one in fifty, the others one in twenty); {@link LibmF32Tables} has the table-driven
 * ones computed in double. These follow the single-precision algorithms that glibc 2.36 (the C
 * library of the Linux machines IREE's release was checked on) uses: every step is a float
 * operation, rounded to nearest as C's float arithmetic without contraction, so the results are
 * the same bits. Stateless; nothing allocates.
 */
public final class LibmF32 {
    private static final float LN2_HI = 6.9313812256e-01f; // ln 2 with its low 12 bits cleared
    private static final float LN2_LO = 9.0580006145e-06f; // ln 2 - LN2_HI
    private static final float INV_LN2 = 1.4426950216e+00f;
    // Coefficients of the rational approximation of expm1 on [-ln2/2, ln2/2], in x^2/2.
    private static final float Q1 = -3.3333335072e-02f;
    private static final float Q2 = 1.5873016091e-03f;
    private static final float Q3 = -7.9365076090e-05f;
    private static final float Q4 = 4.0082177293e-06f;
    private static final float Q5 = -2.0109921195e-07f;
    /** Past this, exp(x) overflows in float. */
    private static final float EXP_OVERFLOW = 8.8721679688e+01f;

    // erf: x + x P(x^2)/Q(x^2) below 0.84375; erf(1) - ish constant plus P/Q in |x| - 1 up to 1.25;
    // above, 1 - exp(-x^2 - 0.5625 + R/S)/x with R/S in 1/x^2, one pair up to 1/0.35, one beyond.
    private static final float ERF_SMALL_SLOPE = 1.2837916613e-01f; // 2/sqrt(pi) - 1
    private static final float ERX = 8.4506291151e-01f;
    private static final float[] ERF_P = {1.2837916613e-01f, -3.2504209876e-01f, -2.8481749818e-02f,
        -5.7702702470e-03f, -2.3763017452e-05f};
    private static final float[] ERF_Q = {1.0f, 3.9791721106e-01f, 6.5022252500e-02f, 5.0813062117e-03f,
        1.3249473704e-04f, -3.9602282413e-06f};
    private static final float[] ERF_PA = {-2.3621185683e-03f, 4.1485610604e-01f, -3.7220788002e-01f,
        3.1834661961e-01f, -1.1089469492e-01f, 3.5478305072e-02f, -2.1663755178e-03f};
    private static final float[] ERF_QA = {1.0f, 1.0642088205e-01f, 5.4039794207e-01f, 7.1828655899e-02f,
        1.2617121637e-01f, 1.3637083583e-02f, 1.1984500103e-02f};
    private static final float[] ERFC_RA = {-9.8649440333e-03f, -6.9385856390e-01f, -1.0558626175e+01f,
        -6.2375331879e+01f, -1.6239666748e+02f, -1.8460508728e+02f, -8.1287437439e+01f, -9.8143291473e+00f};
    private static final float[] ERFC_SA = {1.0f, 1.9651271820e+01f, 1.3765776062e+02f, 4.3456588745e+02f,
        6.4538726807e+02f, 4.2900814819e+02f, 1.0863500214e+02f, 6.5702495575e+00f, -6.0424413532e-02f};
    private static final float[] ERFC_RB = {-9.8649431020e-03f, -7.9928326607e-01f, -1.7757955551e+01f,
        -1.6063638306e+02f, -6.3756646729e+02f, -1.0250950928e+03f, -4.8351919556e+02f};
    private static final float[] ERFC_SB = {1.0f, 3.0338060379e+01f, 3.2579251099e+02f, 1.5367296143e+03f,
        3.1998581543e+03f, 2.5530502930e+03f, 4.7452853394e+02f, -2.2440952301e+01f};

    // log1p: log(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2)) with s = f / (2 + f), after 1 + x = 2^k (1 + f).
    private static final float[] LOG1P_LP = {6.6666668653e-01f, 4.0000000596e-01f, 2.8571429849e-01f,
        2.2222198546e-01f, 1.8183572590e-01f, 1.5313838422e-01f, 1.4798198640e-01f};

    // atan: reduced to |t| < 7/16 around 0, 0.5, 1, 1.5 or infinity; atan of those in two parts.
    private static final float[] ATAN_HI = {4.6364760399e-01f, 7.8539812565e-01f, 9.8279368877e-01f,
        1.5707962513e+00f};
    private static final float[] ATAN_LO = {5.0121582440e-09f, 3.7748947079e-08f, 3.4473217170e-08f,
        7.5497894159e-08f};
    private static final float[] ATAN_ODD = {3.3333334327e-01f, 1.4285714924e-01f, 9.0908870101e-02f,
        6.6610731184e-02f, 4.9768779427e-02f, 1.6285819933e-02f};
    private static final float[] ATAN_EVEN = {-2.0000000298e-01f, -1.1111110449e-01f, -7.6918758452e-02f,
        -5.8335702866e-02f, -3.6531571299e-02f};

    private LibmF32() {
    }

    /**
     * {@code expm1f}: {@code e^x - 1}. The argument is reduced to {@code x = k ln2 + r} with
     * {@code |r| <= ln2/2} (ln 2 split in two parts so that {@code k * LN2_HI} is exact), {@code e^r - 1}
     * comes from a rational approximation with a correction term for the reduction's rounding, and
     * {@code 2^k} is put back into the exponent bits.
     */
    public static float expm1(float x) {
        int bits = Float.floatToRawIntBits(x);
        boolean negative = bits < 0;
        int magnitude = bits & 0x7fffffff;
        if (magnitude >= 0x4195b844) { // |x| >= 27 ln2: e^x is beyond float's precision of 1
            if (magnitude >= 0x42b17218) {
                if (magnitude > 0x7f800000) {
                    return x + x; // NaN
                }
                if (magnitude == 0x7f800000) {
                    return negative ? -1.0f : x;
                }
                if (x > EXP_OVERFLOW) {
                    return Float.POSITIVE_INFINITY;
                }
            }
            if (negative) {
                return -1.0f;
            }
        }
        int k;
        float c = 0.0f;
        if (magnitude > 0x3eb17218) { // |x| > ln2/2: reduce
            float hi;
            float lo;
            if (magnitude < 0x3F851592) { // |x| < 3 ln2/2: k is ±1
                k = negative ? -1 : 1;
                hi = negative ? x + LN2_HI : x - LN2_HI;
                lo = negative ? -LN2_LO : LN2_LO;
            } else {
                k = (int) (INV_LN2 * x + (negative ? -0.5f : 0.5f));
                float t = k;
                hi = x - t * LN2_HI;
                lo = t * LN2_LO;
            }
            x = hi - lo;
            c = (hi - x) - lo;
        } else if (magnitude < 0x33000000) { // |x| < 2^-25: e^x - 1 rounds to x
            return x;
        } else {
            k = 0;
        }
        float halfX = 0.5f * x;
        float halfXSquared = x * halfX;
        float r1 = 1.0f + halfXSquared * (Q1 + halfXSquared * (Q2 + halfXSquared * (Q3 + halfXSquared
                * (Q4 + halfXSquared * Q5))));
        float t = 3.0f - r1 * halfX;
        float e = halfXSquared * ((r1 - t) / (6.0f - x * t));
        if (k == 0) {
            return x - (x * e - halfXSquared);
        }
        e = x * (e - c) - c;
        e -= halfXSquared;
        if (k == -1) {
            return 0.5f * (x - e) - 0.5f;
        }
        if (k == 1) {
            return x < -0.25f ? -2.0f * (e - (x + 0.5f)) : 1.0f + 2.0f * (x - e);
        }
        float y;
        if (k <= -2 || k > 56) { // e^x - 1 is e^x to float precision
            y = 1.0f - (e - x);
            return scaleByExponentBits(y, k) - 1.0f;
        }
        if (k < 23) {
            float oneMinusTwoToMinusK = Float.intBitsToFloat(0x3f800000 - (0x1000000 >> k));
            y = oneMinusTwoToMinusK - (e - x);
        } else {
            float twoToMinusK = Float.intBitsToFloat((0x7f - k) << 23);
            y = x - (e + twoToMinusK);
            y += 1.0f;
        }
        return scaleByExponentBits(y, k);
    }

    /** Adds {@code k} to the biased exponent of {@code y} (y is normal and stays so). */
    private static float scaleByExponentBits(float y, int k) {
        return Float.intBitsToFloat(Float.floatToRawIntBits(y) + (k << 23));
    }

    /**
     * {@code tanhf}: from {@code expm1f} of {@code ±2|x|}: {@code 1 - 2 / (e^{2|x|} + 1)} for
     * {@code |x| >= 1}, {@code -t / (t + 2)} with {@code t = e^{-2|x|} - 1} below; ±1 from 22 on (to
     * float precision), {@code x} itself when tiny.
     */
    public static float tanh(float x) {
        int bits = Float.floatToRawIntBits(x);
        int magnitude = bits & 0x7fffffff;
        if (magnitude >= 0x7f800000) { // ±inf to ±1, NaN to NaN
            return bits >= 0 ? 1.0f / x + 1.0f : 1.0f / x - 1.0f;
        }
        float z;
        if (magnitude < 0x41b00000) { // |x| < 22
            if (magnitude == 0) {
                return x;
            }
            if (magnitude < 0x24000000) { // |x| < 2^-55
                return x * (1.0f + x);
            }
            if (magnitude >= 0x3f800000) { // |x| >= 1
                float t = expm1(2.0f * Math.abs(x));
                z = 1.0f - 2.0f / (t + 2.0f);
            } else {
                float t = expm1(-2.0f * Math.abs(x));
                z = -t / (t + 2.0f);
            }
        } else {
            z = 1.0f; // 1 - 1e-30 rounds to 1
        }
        return bits >= 0 ? z : -z;
    }

    /**
     * {@code erff}: rational approximations on [0, 0.84375), [0.84375, 1.25), [1.25, 1/0.35) and
     * [1/0.35, 6), ±1 beyond (to float precision), odd. Allocates nothing.
     */
    public static float erf(float x) {
        int bits = Float.floatToRawIntBits(x);
        int magnitude = bits & 0x7fffffff;
        if (magnitude >= 0x7f800000) { // ±1 for ±inf, NaN for NaN
            return (bits < 0 ? -1.0f : 1.0f) + 1.0f / x;
        }
        if (magnitude < 0x3f580000) { // |x| < 0.84375
            if (magnitude < 0x31800000) { // |x| < 2^-28
                if (magnitude < 0x04000000) { // scaled so that tiny x keeps its bits
                    return 0.0625f * (16.0f * x + (16.0f * ERF_SMALL_SLOPE) * x);
                }
                return x + ERF_SMALL_SLOPE * x;
            }
            float z = x * x;
            return x + x * (horner(ERF_P, z) / horner(ERF_Q, z));
        }
        if (magnitude < 0x3fa00000) { // |x| < 1.25
            float s = Math.abs(x) - 1.0f;
            float quotient = horner(ERF_PA, s) / horner(ERF_QA, s);
            return bits >= 0 ? ERX + quotient : -ERX - quotient;
        }
        if (magnitude >= 0x40c00000) { // |x| >= 6
            return bits >= 0 ? 1.0f : -1.0f;
        }
        float a = Math.abs(x);
        float s = 1.0f / (a * a);
        float r;
        float q;
        if (magnitude < 0x4036DB6E) { // |x| < 1/0.35
            r = horner(ERFC_RA, s);
            q = horner(ERFC_SA, s);
        } else {
            r = horner(ERFC_RB, s);
            q = horner(ERFC_SB, s);
        }
        float high = Float.intBitsToFloat(Float.floatToRawIntBits(a) & 0xfffff000); // a with its low 12 bits cleared
        float e = LibmF32Tables.exp(-high * high - 0.5625f)
                * LibmF32Tables.exp((high - a) * (high + a) + r / q);
        return bits >= 0 ? 1.0f - e / a : e / a - 1.0f;
    }

    /** {@code c[0] + t * (c[1] + t * (... + t * c[n-1]))} in float, innermost first. */
    private static float horner(float[] c, float t) {
        float sum = c[c.length - 1];
        for (int i = c.length - 2; i >= 0; i--) {
            sum = c[i] + t * sum;
        }
        return sum;
    }

    /**
     * {@code log1pf}: {@code log(1 + x)}. {@code 1 + x} is split into {@code 2^k (1 + f)} with
     * {@code sqrt(2)/2 <= 1 + f < sqrt(2)} and a correction {@code c} for the rounding of
     * {@code 1 + x}; small arguments skip the split.
     */
    public static float log1p(float x) {
        int bits = Float.floatToRawIntBits(x);
        int magnitude = bits & 0x7fffffff;
        int k = 1;
        float f = 0.0f;
        float c = 0.0f;
        int mantissa = 0;
        if (bits < 0x3ed413d7) { // x < sqrt(2) - 1 (or negative)
            if (magnitude >= 0x3f800000) { // x <= -1
                return x == -1.0f ? Float.NEGATIVE_INFINITY : Float.NaN;
            }
            if (magnitude < 0x31000000) { // |x| < 2^-29
                return magnitude < 0x24800000 ? x : x - x * x * 0.5f;
            }
            if (bits > 0 || bits <= 0xbe95f61f) { // sqrt(2)/2 - 1 < x < sqrt(2) - 1: no split
                k = 0;
                f = x;
                mantissa = 1;
            }
        }
        if (bits >= 0x7f800000) {
            return x + x; // +inf, NaN
        }
        if (k != 0) {
            float u;
            if (bits < 0x5a000000) { // x < 2^53: 1 + x rounds, keep what it lost
                u = 1.0f + x;
                mantissa = Float.floatToRawIntBits(u);
                k = (mantissa >> 23) - 127;
                c = (k > 0 ? 1.0f - (u - x) : x - (u - 1.0f)) / u;
            } else {
                u = x;
                mantissa = Float.floatToRawIntBits(u);
                k = (mantissa >> 23) - 127;
            }
            mantissa &= 0x007fffff;
            if (mantissa < 0x3504f7) { // 1 + f < sqrt(2)
                u = Float.intBitsToFloat(mantissa | 0x3f800000);
            } else { // halve: sqrt(2)/2 <= 1 + f < 1
                k += 1;
                u = Float.intBitsToFloat(mantissa | 0x3f000000);
                mantissa = (0x00800000 - mantissa) >> 2;
            }
            f = u - 1.0f;
        }
        float halfFSquared = 0.5f * f * f;
        if (mantissa == 0) { // |f| < 2^-20
            if (f == 0.0f) {
                return k == 0 ? 0.0f : k * LN2_HI + (c + k * LN2_LO);
            }
            float r = halfFSquared * (1.0f - 0.6666667f * f);
            return k == 0 ? f - r : k * LN2_HI - ((r - (k * LN2_LO + c)) - f);
        }
        float s = f / (2.0f + f);
        float z = s * s;
        float r = z * horner(LOG1P_LP, z);
        if (k == 0) {
            return f - (halfFSquared - s * (halfFSquared + r));
        }
        return k * LN2_HI - ((halfFSquared - (s * (halfFSquared + r) + (k * LN2_LO + c))) - f);
    }

    /**
     * {@code atanf}: the argument is reduced to {@code |t| < 7/16} around 0, 1/2, 1, 3/2 or
     * infinity, and {@code atan(t)} comes from an odd polynomial split into two in {@code t^4};
     * {@code atan} of the center is added in two parts.
     */
    public static float atan(float x) {
        int bits = Float.floatToRawIntBits(x);
        int magnitude = bits & 0x7fffffff;
        if (magnitude >= 0x4c000000) { // |x| >= 2^25
            if (magnitude > 0x7f800000) {
                return x + x; // NaN
            }
            return bits > 0 ? ATAN_HI[3] + ATAN_LO[3] : -ATAN_HI[3] - ATAN_LO[3];
        }
        int center;
        float t;
        if (magnitude < 0x3ee00000) { // |x| < 7/16
            if (magnitude < 0x31000000) { // |x| < 2^-29
                return x;
            }
            center = -1;
            t = x;
        } else {
            float a = Math.abs(x);
            if (magnitude < 0x3f300000) { // < 11/16
                center = 0;
                t = (2.0f * a - 1.0f) / (2.0f + a);
            } else if (magnitude < 0x3f980000) { // < 19/16
                center = 1;
                t = (a - 1.0f) / (a + 1.0f);
            } else if (magnitude < 0x401c0000) { // < 39/16
                center = 2;
                t = (a - 1.5f) / (1.0f + 1.5f * a);
            } else {
                center = 3;
                t = -1.0f / a;
            }
        }
        float z = t * t;
        float w = z * z;
        float odd = z * horner(ATAN_ODD, w);
        float even = w * horner(ATAN_EVEN, w);
        if (center < 0) {
            return t - t * (odd + even);
        }
        float result = ATAN_HI[center] - ((t * (odd + even) - ATAN_LO[center]) - t);
        return bits < 0 ? -result : result;
    }

}
