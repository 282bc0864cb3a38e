package dev.ortho.vm.internal.ext;

/**
 * The single-precision C library functions IREE's VM calls ({@code vm/ops.h}: {@code tanhf},
 * {@code expm1f}, {@code erff}, {@code log1pf}, {@code atanf}, {@code expf}, {@code sinf},
 * {@code cosf}, {@code powf}) where the library IREE runs on is not correctly rounded, so that a correctly
 * rounded result ({@code (float) Math.tanh(x)}) differs from IREE's in the last bit or two for about
 * one argument in five ({@code erff}: one in fifty; {@code log1pf}, {@code atanf}: one in twenty;
 * {@code expf}, {@code sinf}, {@code cosf}, {@code powf}, computed in double: one in a hundred to two thousand).
 * These follow the classic single-precision algorithms that glibc 2.36 (the
 * C library of the Linux machines IREE's release was checked on) uses for them: every step is a
 * float (for {@code expf}, {@code sinf}, {@code cosf}, {@code powf}: double) operation, rounded to nearest as C's float arithmetic without contraction, so the results
 * are the same bits. Stateless.
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

    // exp: 2^(i/32) for i in [0, 32) as double bits, less i << 47 (put back with k's bits).
    private static final long[] EXP_TABLE = {
        0x3ff0000000000000L, 0x3fefd9b0d3158574L, 0x3fefb5586cf9890fL, 0x3fef9301d0125b51L,
        0x3fef72b83c7d517bL, 0x3fef54873168b9aaL, 0x3fef387a6e756238L, 0x3fef1e9df51fdee1L,
        0x3fef06fe0a31b715L, 0x3feef1a7373aa9cbL, 0x3feedea64c123422L, 0x3feece086061892dL,
        0x3feebfdad5362a27L, 0x3feeb42b569d4f82L, 0x3feeab07dd485429L, 0x3feea47eb03a5585L,
        0x3feea09e667f3bcdL, 0x3fee9f75e8ec5f74L, 0x3feea11473eb0187L, 0x3feea589994cce13L,
        0x3feeace5422aa0dbL, 0x3feeb737b0cdc5e5L, 0x3feec49182a3f090L, 0x3feed503b23e255dL,
        0x3feee89f995ad3adL, 0x3feeff76f2fb5e47L, 0x3fef199bdd85529cL, 0x3fef3720dcef9069L,
        0x3fef5818dcfba487L, 0x3fef7c97337b9b5fL, 0x3fefa4afa2a490daL, 0x3fefd0765b6e4540L,
    };
    private static final double EXP_INV_LN2_SCALED = 0x1.71547652b82fep+0 * 32;
    private static final double EXP_ROUND_SHIFT = 0x1.8p+52;
    private static final double EXP_C0 = 0x1.c6af84b912394p-5 / 32 / 32 / 32;
    private static final double EXP_C1 = 0x1.ebfce50fac4f3p-3 / 32 / 32;
    private static final double EXP_C2 = 0x1.62e42ff0c52d6p-1 / 32;
    /** The top 12 bits of 88.0f: from there on the special cases are checked. */
    private static final int EXP_SPECIAL_TOP = Float.floatToRawIntBits(88.0f) >>> 20;

    // sin, cos: reduced by multiples of pi/2 in double; polynomials of sin and cos on [-pi/4, pi/4]
    // (the second set negates cos, for quadrants 2 and 3).
    private static final double[] SINCOS_SIGN = {1.0, -1.0, -1.0, 1.0};
    private static final double HALF_PI_INV_SCALED = 0x1.45F306DC9C883p+23; // 2/pi * 2^24
    private static final double HALF_PI = 0x1.921FB54442D18p0;
    private static final double[] COS_POLY = {0x1p0, -0x1.ffffffd0c621cp-2, 0x1.55553e1068f19p-5,
        -0x1.6c087e89a359dp-10, 0x1.99343027bf8c3p-16};
    private static final double[] NEG_COS_POLY = {-0x1p0, 0x1.ffffffd0c621cp-2, -0x1.55553e1068f19p-5,
        0x1.6c087e89a359dp-10, -0x1.99343027bf8c3p-16};
    private static final double[] SIN_POLY = {-0x1.555545995a603p-3, 0x1.1107605230bc4p-7,
        -0x1.994eb3774cf24p-13};
    /** 4/pi to 192 bits, 8 new bits per entry so that any 96 bits are three entries 4 apart. */
    private static final int[] INV_PI_OVER_4 = {
        0xa2, 0xa2f9, 0xa2f983, 0xa2f9836e, 0xf9836e4e, 0x836e4e44, 0x6e4e4415, 0x4e441529,
        0x441529fc, 0x1529fc27, 0x29fc2757, 0xfc2757d1, 0x2757d1f5, 0x57d1f534, 0xd1f534dd, 0xf534ddc0,
        0x34ddc0db, 0xddc0db62, 0xc0db6295, 0xdb629599, 0x6295993c, 0x95993c43, 0x993c4390, 0x3c439041,
    };
    private static final double TWO_PI_SCALED = 0x1.921FB54442D18p-62; // 2 pi * 2^-64
    private static final int TOP_PI_OVER_4 = top12((float) 0x1.921FB54442D18p-1);
    private static final int TOP_TINY = top12(0x1p-12f);
    private static final int TOP_120 = top12(120.0f);
    private static final int TOP_INF = top12(Float.POSITIVE_INFINITY);

    // pow: log2 of x from a 16-interval table {1/c, log2 c} and a degree-5 polynomial, then exp2 with
    // the exp table above (its cubic unscaled).
    private static final double[] POW_LOG2_INV_C = {0x1.661ec79f8f3bep+0, 0x1.571ed4aaf883dp+0,
        0x1.49539f0f010bp+0, 0x1.3c995b0b80385p+0, 0x1.30d190c8864a5p+0, 0x1.25e227b0b8eap+0,
        0x1.1bb4a4a1a343fp+0, 0x1.12358f08ae5bap+0, 0x1.0953f419900a7p+0, 0x1p+0, 0x1.e608cfd9a47acp-1,
        0x1.ca4b31f026aap-1, 0x1.b2036576afce6p-1, 0x1.9c2d163a1aa2dp-1, 0x1.886e6037841edp-1,
        0x1.767dcf5534862p-1};
    private static final double[] POW_LOG2_C = {-0x1.efec65b963019p-2, -0x1.b0b6832d4fca4p-2,
        -0x1.7418b0a1fb77bp-2, -0x1.39de91a6dcf7bp-2, -0x1.01d9bf3f2b631p-2, -0x1.97c1d1b3b7afp-3,
        -0x1.2f9e393af3c9fp-3, -0x1.960cbbf788d5cp-4, -0x1.a6f9db6475fcep-5, 0x0p+0, 0x1.338ca9f24f53dp-4,
        0x1.476a9543891bap-3, 0x1.e840b4ac4e4d2p-3, 0x1.40645f0c6651cp-2, 0x1.88e9c2c1b9ff8p-2,
        0x1.ce0a44eb17bccp-2};
    private static final double[] POW_LOG2_POLY = {0x1.27616c9496e0bp-2, -0x1.71969a075c67ap-2,
        0x1.ec70a6ca7baddp-2, -0x1.7154748bef6c8p-1, 0x1.71547652ab82bp0};
    private static final double EXP2_ROUND_SHIFT = 0x1.8p+52 / 32;
    private static final double EXP2_C0 = 0x1.c6af84b912394p-5;
    private static final double EXP2_C1 = 0x1.ebfce50fac4f3p-3;
    private static final double EXP2_C2 = 0x1.62e42ff0c52d6p-1;
    /** Added to exp2's table index bits to set the sign bit of a negative base's odd power. */
    private static final long POW_SIGN_BIAS = 1L << (5 + 11);

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
     * {@code expf}: in double, {@code x / ln2 = (k + r) / 32} with integer {@code k} and
     * {@code |r| <= 1/2}; {@code 2^(k/32)} from the table and exponent bits, {@code 2^(r/32)} from a
     * cubic. Rounded once, to float, at the end.
     */
    public static float exp(float x) {
        int bits = Float.floatToRawIntBits(x);
        int top = (bits >>> 20) & 0x7ff;
        if (top >= EXP_SPECIAL_TOP) { // |x| >= 88, inf or NaN
            if (bits == 0xff800000) {
                return 0.0f;
            }
            if (top >= 0x7f8) {
                return x + x; // +inf, NaN
            }
            if (x > 0x1.62e42ep6f) { // past log(2^128)
                return Float.POSITIVE_INFINITY;
            }
            if (x < -0x1.9fe368p6f) { // below log(2^-150)
                return 0.0f;
            }
        }
        double z = EXP_INV_LN2_SCALED * x;
        double shifted = z + EXP_ROUND_SHIFT; // rounds z to an integer in the low mantissa bits
        long k = Double.doubleToRawLongBits(shifted);
        double r = z - (shifted - EXP_ROUND_SHIFT);
        double scale = Double.longBitsToDouble(EXP_TABLE[(int) (k & 31)] + (k << 47));
        double p = EXP_C0 * r + EXP_C1;
        double y = EXP_C2 * r + 1.0;
        y = p * (r * r) + y;
        return (float) (y * scale);
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
        float e = exp(-high * high - 0.5625f) * exp((high - a) * (high + a) + r / q);
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

    /** {@code sinf}. */
    public static float sin(float y) {
        return sinOrCos(y, false);
    }

    /** {@code cosf}. */
    public static float cos(float y) {
        return sinOrCos(y, true);
    }

    /**
     * sinf and cosf: below pi/4 the polynomial directly; below 120 one multiply-subtract by pi/2
     * (pi/2 in double is exact enough there); beyond, the quadrant and remainder from a 32 x 96-bit
     * fixed-point product with 4/pi. Odd quadrants swap the polynomials, the sign table and the
     * negated cosine set give the signs.
     */
    private static float sinOrCos(float y, boolean cos) {
        int top = top12(y);
        double x = y;
        if (top < TOP_PI_OVER_4) {
            if (top < TOP_TINY) {
                return cos ? 1.0f : y;
            }
            return sinCosPoly(x, x * x, COS_POLY, cos ? 1 : 0);
        }
        int quadrant;
        int signQuadrant;
        if (top < TOP_120) {
            double scaled = x * HALF_PI_INV_SCALED;
            quadrant = ((int) scaled + 0x800000) >> 24;
            x = x - quadrant * HALF_PI;
            signQuadrant = quadrant;
        } else if (top < TOP_INF) {
            // The remainder of |y| * 4/pi, exact in 2.62 fixed point from a 32 x 96-bit product with
            // the 96 bits of 4/pi that matter for y's exponent, then scaled by pi/2.
            int bits = Float.floatToRawIntBits(y);
            int at = (bits >>> 26) & 15;
            long mantissa = (((bits & 0xffffff) | 0x800000) << ((bits >>> 23) & 7)) & 0xffffffffL;
            long low = (mantissa * (INV_PI_OVER_4[at] & 0xffffffffL)) & 0xffffffffL;
            long middle = mantissa * (INV_PI_OVER_4[at + 4] & 0xffffffffL);
            long high = mantissa * (INV_PI_OVER_4[at + 8] & 0xffffffffL);
            long fraction = ((high >>> 32) | (low << 32)) + middle;
            long wholeQuadrants = (fraction + (1L << 61)) >>> 62;
            fraction -= wholeQuadrants << 62;
            quadrant = (int) wholeQuadrants;
            x = fraction * TWO_PI_SCALED;
            signQuadrant = quadrant + (bits >>> 31);
        } else {
            return (y - y) / (y - y); // NaN for ±inf and NaN
        }
        double sign = SINCOS_SIGN[signQuadrant & 3];
        double[] cosPoly = (signQuadrant & 2) != 0 ? NEG_COS_POLY : COS_POLY;
        return sinCosPoly(x * sign, x * x, cosPoly, cos ? quadrant ^ 1 : quadrant);
    }

    /** The sine polynomial of {@code x} for even {@code quadrant}, the cosine one (from {@code c}) for odd. */
    private static float sinCosPoly(double x, double x2, double[] c, int quadrant) {
        if ((quadrant & 1) == 0) {
            double x3 = x * x2;
            double s1 = SIN_POLY[1] + x2 * SIN_POLY[2];
            double x7 = x3 * x2;
            double s = x + x3 * SIN_POLY[0];
            return (float) (s + x7 * s1);
        }
        double x4 = x2 * x2;
        double c2 = c[3] + x2 * c[4];
        double c1 = c[0] + x2 * c[1];
        double x6 = x4 * x2;
        double sum = c1 + x4 * c[2];
        return (float) (sum + x6 * c2);
    }

    private static int top12(float x) {
        return (Float.floatToRawIntBits(x) >>> 20) & 0x7ff;
    }

    /**
     * {@code powf}: {@code 2^(y log2 x)} in double; the special cases of C's {@code pow} (zero,
     * infinite and NaN arguments, negative bases with integer exponents) first.
     */
    public static float pow(float x, float y) {
        long signBias = 0;
        int ix = Float.floatToRawIntBits(x);
        int iy = Float.floatToRawIntBits(y);
        if (Integer.compareUnsigned(ix - 0x00800000, 0x7f800000 - 0x00800000) >= 0 || zeroInfNan(iy)) {
            // x below 2^-126, negative, infinite or NaN; or y zero, infinite or NaN
            if (zeroInfNan(iy)) {
                if (iy << 1 == 0) {
                    return signaling(ix) ? x + y : 1.0f;
                }
                if (ix == 0x3f800000) {
                    return signaling(iy) ? x + y : 1.0f;
                }
                if (Integer.compareUnsigned(ix << 1, 0xff000000) > 0 || Integer.compareUnsigned(iy << 1, 0xff000000) > 0) {
                    return x + y; // NaN
                }
                if (ix << 1 == 0x7f000000) {
                    return 1.0f; // (-1)^±inf
                }
                if ((Integer.compareUnsigned(ix << 1, 0x7f000000) < 0) == (iy >= 0)) {
                    return 0.0f; // |x| < 1 and y = inf, or |x| > 1 and y = -inf
                }
                return y * y;
            }
            if (zeroInfNan(ix)) {
                float x2 = x * x;
                if (ix < 0 && integerKind(iy) == 1) {
                    x2 = -x2;
                }
                return iy < 0 ? 1 / x2 : x2;
            }
            if (ix < 0) { // finite x < 0: only integer y
                int kind = integerKind(iy);
                if (kind == 0) {
                    return (x - x) / (x - x);
                }
                if (kind == 1) {
                    signBias = POW_SIGN_BIAS;
                }
                ix &= 0x7fffffff;
            }
            if (ix < 0x00800000) { // subnormal: normalize, the exponent becomes negative
                ix = Float.floatToRawIntBits(x * 0x1p23f) & 0x7fffffff;
                ix -= 23 << 23;
            }
        }
        double yLog2X = y * log2Inline(ix);
        if (((Double.doubleToRawLongBits(yLog2X) >>> 47) & 0xffff) >= (Double.doubleToRawLongBits(126.0) >>> 47)) {
            if (yLog2X > 0x1.fffffffd1d571p+6) {
                return signBias != 0 ? Float.NEGATIVE_INFINITY : Float.POSITIVE_INFINITY;
            }
            if (yLog2X <= -150.0) {
                return signBias != 0 ? -0.0f : 0.0f;
            }
        }
        return (float) exp2Inline(yLog2X, signBias);
    }

    /** log2 of the float with bits {@code ix} (a subnormal's exponent already made negative). */
    private static double log2Inline(int ix) {
        int offset = ix - 0x3f330000;
        int i = (offset >>> 19) & 15;
        int top = offset & 0xff800000;
        double z = Float.intBitsToFloat(ix - top); // in [0x3f330000, 2 * that)
        int k = top >> 23;
        double r = z * POW_LOG2_INV_C[i] - 1;
        double y0 = POW_LOG2_C[i] + k;
        double r2 = r * r;
        double y = POW_LOG2_POLY[0] * r + POW_LOG2_POLY[1];
        double p = POW_LOG2_POLY[2] * r + POW_LOG2_POLY[3];
        double r4 = r2 * r2;
        double q = POW_LOG2_POLY[4] * r + y0;
        q = p * r2 + q;
        return y * r4 + q;
    }

    /** {@code 2^x}, negated when {@code signBias} is set. */
    private static double exp2Inline(double x, long signBias) {
        double shifted = x + EXP2_ROUND_SHIFT;
        long k = Double.doubleToRawLongBits(shifted);
        double r = x - (shifted - EXP2_ROUND_SHIFT);
        double scale = Double.longBitsToDouble(EXP_TABLE[(int) (k & 31)] + ((k + signBias) << 47));
        double z = EXP2_C0 * r + EXP2_C1;
        double y = EXP2_C2 * r + 1;
        y = z * (r * r) + y;
        return y * scale;
    }

    /** For non-zero finite bits {@code iy}: 0 if not an integer, 1 if odd, 2 if even. */
    private static int integerKind(int iy) {
        int e = (iy >>> 23) & 0xff;
        if (e < 0x7f) {
            return 0;
        }
        if (e > 0x7f + 23) {
            return 2;
        }
        if ((iy & ((1 << (0x7f + 23 - e)) - 1)) != 0) {
            return 0;
        }
        return (iy & (1 << (0x7f + 23 - e))) != 0 ? 1 : 2;
    }

    private static boolean zeroInfNan(int bits) {
        return Integer.compareUnsigned(2 * bits - 1, 2 * 0x7f800000 - 1) >= 0;
    }

    private static boolean signaling(int bits) {
        return Integer.compareUnsigned(2 * (bits ^ 0x00400000), 2 * 0x7fc00000) > 0;
    }
}
