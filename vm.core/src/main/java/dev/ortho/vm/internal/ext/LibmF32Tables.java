package dev.ortho.vm.internal.ext;

/**
 * The table-driven single-precision C library functions of glibc 2.36 that IREE's VM calls
 * ({@code vm/ops.h}): {@code expf}, {@code sinf}, {@code cosf} and {@code powf}, computed in double
 * with glibc's tables and polynomials and rounded to float once at the end, so that they give
 * glibc's bits where the correctly rounded result differs (about one argument in a hundred to two
 * thousand). x86-64 glibc picks variants built with fused multiply-adds on CPUs that have them;
 * with or without fusing, the results agreed on every argument tried. The float-arithmetic
 * functions are in {@link LibmF32}. Stateless; nothing allocates.
 */
public final class LibmF32Tables {
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

    private LibmF32Tables() {
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
                if (Integer.compareUnsigned(ix << 1, 0xff000000) > 0
                        || Integer.compareUnsigned(iy << 1, 0xff000000) > 0) {
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
