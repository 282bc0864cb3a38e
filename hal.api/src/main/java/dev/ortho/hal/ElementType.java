package dev.ortho.hal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;

/**
 * Element types of buffer views ({@code iree_hal_element_type_t}): a 32-bit value
 * {@code (numerical_type << 24) | bit_count}, with IREE's numerical types, IREE's full enum of
 * named types and IREE's short text names ({@code f32}, {@code si8}, {@code bf16},
 * {@code f8E4M3FN}, {@code *64}).
 *
 * <p>Any numerical type may be combined with any bit count from 0 to 255 ({@link #make}); the
 * constants are the combinations IREE names. Booleans are stored in 8 bits but named {@code i1}.
 * Sub-byte types (e.g. {@link #INT_4}) are packed densely in storage: {@link #packedByteCount}
 * is what a buffer view of them occupies, {@link #denseByteCount} is the bytes one element would
 * take on its own.
 *
 * <p>Not instantiable; every method is pure and thread-safe.
 */
public final class ElementType {
    /** Numerical type: opaque or unknown; bytes cannot be interpreted, only counted. */
    public static final int NUMERICAL_TYPE_UNKNOWN = 0x00;
    /** Numerical type: signless integer. */
    public static final int NUMERICAL_TYPE_INTEGER = 0x10;
    /** Numerical type: signed integer. */
    public static final int NUMERICAL_TYPE_INTEGER_SIGNED = NUMERICAL_TYPE_INTEGER | 0x01;
    /** Numerical type: unsigned integer. */
    public static final int NUMERICAL_TYPE_INTEGER_UNSIGNED = NUMERICAL_TYPE_INTEGER | 0x02;
    /** Numerical type: boolean, stored as an integer of which only one bit is valid. */
    public static final int NUMERICAL_TYPE_BOOLEAN = NUMERICAL_TYPE_INTEGER | 0x03;
    /** Numerical type: some floating point format. */
    public static final int NUMERICAL_TYPE_FLOAT = 0x20;
    /** Numerical type: IEEE 754 floating point. */
    public static final int NUMERICAL_TYPE_FLOAT_IEEE = NUMERICAL_TYPE_FLOAT | 0x01;
    /** Numerical type: brain floating point (bf16). */
    public static final int NUMERICAL_TYPE_FLOAT_BRAIN = NUMERICAL_TYPE_FLOAT | 0x02;
    /** Numerical type: (real, imaginary) pair of floats. */
    public static final int NUMERICAL_TYPE_FLOAT_COMPLEX = NUMERICAL_TYPE_FLOAT | 0x03;
    /** Numerical type: 8-bit float, 5 exponent and 2 mantissa bits. */
    public static final int NUMERICAL_TYPE_FLOAT_8_E5M2 = NUMERICAL_TYPE_FLOAT | 0x04;
    /** Numerical type: 8-bit float, 4 exponent and 3 mantissa bits, finite, one NaN. */
    public static final int NUMERICAL_TYPE_FLOAT_8_E4M3FN = NUMERICAL_TYPE_FLOAT | 0x05;
    /** Numerical type: 8-bit float E5M2, finite, unsigned zero (NaN is negative zero). */
    public static final int NUMERICAL_TYPE_FLOAT_8_E5M2_FNUZ = NUMERICAL_TYPE_FLOAT | 0x06;
    /** Numerical type: 8-bit float E4M3, finite, unsigned zero (NaN is negative zero). */
    public static final int NUMERICAL_TYPE_FLOAT_8_E4M3_FNUZ = NUMERICAL_TYPE_FLOAT | 0x07;
    /** Numerical type: 8-bit power-of-two scale, no sign, no zero, one NaN. */
    public static final int NUMERICAL_TYPE_FLOAT_8_E8M0_FNU = NUMERICAL_TYPE_FLOAT | 0x08;

    /** No element type (opaque, 0 bits). */
    public static final int NONE = make(NUMERICAL_TYPE_UNKNOWN, 0);
    /** Opaque 8-bit elements ({@code *8}). */
    public static final int OPAQUE_8 = make(NUMERICAL_TYPE_UNKNOWN, 8);
    /** Opaque 16-bit elements ({@code *16}). */
    public static final int OPAQUE_16 = make(NUMERICAL_TYPE_UNKNOWN, 16);
    /** Opaque 32-bit elements ({@code *32}). */
    public static final int OPAQUE_32 = make(NUMERICAL_TYPE_UNKNOWN, 32);
    /** Opaque 64-bit elements ({@code *64}). */
    public static final int OPAQUE_64 = make(NUMERICAL_TYPE_UNKNOWN, 64);
    /** Boolean stored in 8 bits ({@code i1}). */
    public static final int BOOL_8 = make(NUMERICAL_TYPE_BOOLEAN, 8);
    /** Signless 4-bit integer ({@code i4}). */
    public static final int INT_4 = make(NUMERICAL_TYPE_INTEGER, 4);
    /** Signed 4-bit integer ({@code si4}). */
    public static final int SINT_4 = make(NUMERICAL_TYPE_INTEGER_SIGNED, 4);
    /** Unsigned 4-bit integer ({@code ui4}). */
    public static final int UINT_4 = make(NUMERICAL_TYPE_INTEGER_UNSIGNED, 4);
    /** Signless 8-bit integer ({@code i8}). */
    public static final int INT_8 = make(NUMERICAL_TYPE_INTEGER, 8);
    /** Signed 8-bit integer ({@code si8}). */
    public static final int SINT_8 = make(NUMERICAL_TYPE_INTEGER_SIGNED, 8);
    /** Unsigned 8-bit integer ({@code ui8}). */
    public static final int UINT_8 = make(NUMERICAL_TYPE_INTEGER_UNSIGNED, 8);
    /** Signless 16-bit integer ({@code i16}). */
    public static final int INT_16 = make(NUMERICAL_TYPE_INTEGER, 16);
    /** Signed 16-bit integer ({@code si16}). */
    public static final int SINT_16 = make(NUMERICAL_TYPE_INTEGER_SIGNED, 16);
    /** Unsigned 16-bit integer ({@code ui16}). */
    public static final int UINT_16 = make(NUMERICAL_TYPE_INTEGER_UNSIGNED, 16);
    /** Signless 32-bit integer ({@code i32}). */
    public static final int INT_32 = make(NUMERICAL_TYPE_INTEGER, 32);
    /** Signed 32-bit integer ({@code si32}). */
    public static final int SINT_32 = make(NUMERICAL_TYPE_INTEGER_SIGNED, 32);
    /** Unsigned 32-bit integer ({@code ui32}). */
    public static final int UINT_32 = make(NUMERICAL_TYPE_INTEGER_UNSIGNED, 32);
    /** Signless 64-bit integer ({@code i64}). */
    public static final int INT_64 = make(NUMERICAL_TYPE_INTEGER, 64);
    /** Signed 64-bit integer ({@code si64}). */
    public static final int SINT_64 = make(NUMERICAL_TYPE_INTEGER_SIGNED, 64);
    /** Unsigned 64-bit integer ({@code ui64}). */
    public static final int UINT_64 = make(NUMERICAL_TYPE_INTEGER_UNSIGNED, 64);
    /** IEEE half precision ({@code f16}). */
    public static final int FLOAT_16 = make(NUMERICAL_TYPE_FLOAT_IEEE, 16);
    /** IEEE single precision ({@code f32}). */
    public static final int FLOAT_32 = make(NUMERICAL_TYPE_FLOAT_IEEE, 32);
    /** IEEE double precision ({@code f64}). */
    public static final int FLOAT_64 = make(NUMERICAL_TYPE_FLOAT_IEEE, 64);
    /** Brain float ({@code bf16}). */
    public static final int BFLOAT_16 = make(NUMERICAL_TYPE_FLOAT_BRAIN, 16);
    /** Complex of two f32 ({@code cf64}). */
    public static final int COMPLEX_FLOAT_64 = make(NUMERICAL_TYPE_FLOAT_COMPLEX, 64);
    /** Complex of two f64 ({@code cf128}). */
    public static final int COMPLEX_FLOAT_128 = make(NUMERICAL_TYPE_FLOAT_COMPLEX, 128);
    /** 8-bit float E5M2 ({@code f8E5M2}). */
    public static final int FLOAT_8_E5M2 = make(NUMERICAL_TYPE_FLOAT_8_E5M2, 8);
    /** 8-bit float E4M3FN ({@code f8E4M3FN}). */
    public static final int FLOAT_8_E4M3_FN = make(NUMERICAL_TYPE_FLOAT_8_E4M3FN, 8);
    /** 8-bit float E5M2FNUZ ({@code f8E5M2FNUZ}). */
    public static final int FLOAT_8_E5M2_FNUZ = make(NUMERICAL_TYPE_FLOAT_8_E5M2_FNUZ, 8);
    /** 8-bit float E4M3FNUZ ({@code f8E4M3FNUZ}). */
    public static final int FLOAT_8_E4M3_FNUZ = make(NUMERICAL_TYPE_FLOAT_8_E4M3_FNUZ, 8);
    /** 8-bit scale E8M0FNU ({@code f8E8M0FNU}). */
    public static final int FLOAT_8_E8M0_FNU = make(NUMERICAL_TYPE_FLOAT_8_E8M0_FNU, 8);

    /** The 8-bit float types, which have whole names rather than prefix + bit count. */
    private static final int[] SMALL_FLOATS = {
        FLOAT_8_E5M2, FLOAT_8_E4M3_FN, FLOAT_8_E5M2_FNUZ, FLOAT_8_E4M3_FNUZ, FLOAT_8_E8M0_FNU};
    private static final String[] SMALL_FLOAT_NAMES = {
        "f8E5M2", "f8E4M3FN", "f8E5M2FNUZ", "f8E4M3FNUZ", "f8E8M0FNU"};
    /** Prefixes in IREE's matching order after the special names: {@code i} before {@code si}. */
    private static final String[] PREFIXES = {"i", "si", "ui", "f", "bf", "cf", "x", "*"};
    private static final int[] PREFIX_TYPES = {
        NUMERICAL_TYPE_INTEGER, NUMERICAL_TYPE_INTEGER_SIGNED, NUMERICAL_TYPE_INTEGER_UNSIGNED,
        NUMERICAL_TYPE_FLOAT_IEEE, NUMERICAL_TYPE_FLOAT_BRAIN, NUMERICAL_TYPE_FLOAT_COMPLEX,
        NUMERICAL_TYPE_UNKNOWN, NUMERICAL_TYPE_UNKNOWN};

    private ElementType() {
    }

    /**
     * Returns {@code (numericalType << 24) | bitCount}.
     *
     * @param numericalType one of the {@code NUMERICAL_TYPE_*} values (0..255)
     * @param bitCount bits per element, 0..255
     * @throws StatusException INVALID_ARGUMENT if either is outside 0..255
     */
    public static int make(int numericalType, int bitCount) {
        if ((numericalType & ~0xFF) != 0 || (bitCount & ~0xFF) != 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "element type numerical type "
                    + numericalType + " / bit count " + bitCount + " out of range 0..255");
        }
        return (numericalType << 24) | bitCount;
    }

    /** The numerical type: the top 8 bits. */
    public static int numericalType(int elementType) {
        return elementType >>> 24;
    }

    /** Bits per element: the low 8 bits. */
    public static int bitCount(int elementType) {
        return elementType & 0xFF;
    }

    /** True if the numerical type is {@link #NUMERICAL_TYPE_UNKNOWN}. */
    public static boolean isOpaque(int elementType) {
        return numericalType(elementType) == NUMERICAL_TYPE_UNKNOWN;
    }

    /** True if the numerical type has every bit of {@link #NUMERICAL_TYPE_BOOLEAN}. */
    public static boolean isBoolean(int elementType) {
        return (numericalType(elementType) & NUMERICAL_TYPE_BOOLEAN) == NUMERICAL_TYPE_BOOLEAN;
    }

    /** True for any integer numerical type (signless, signed, unsigned or boolean), as IREE. */
    public static boolean isInteger(int elementType) {
        return (numericalType(elementType) & NUMERICAL_TYPE_INTEGER) == NUMERICAL_TYPE_INTEGER;
    }

    /** True for any float numerical type, including complex and the 8-bit formats. */
    public static boolean isFloat(int elementType) {
        return (numericalType(elementType) & NUMERICAL_TYPE_FLOAT) == NUMERICAL_TYPE_FLOAT;
    }

    /** True for complex floats (as IREE, a test of the {@link #NUMERICAL_TYPE_FLOAT_COMPLEX} bits). */
    public static boolean isComplexFloat(int elementType) {
        int n = numericalType(elementType);
        return (n & NUMERICAL_TYPE_FLOAT_COMPLEX) == NUMERICAL_TYPE_FLOAT_COMPLEX;
    }

    /** True if elements are a whole number of bytes (bit count divisible by 8). */
    public static boolean isByteAligned(int elementType) {
        return bitCount(elementType) % 8 == 0;
    }

    /** Bytes one element occupies on its own: the bit count rounded up to whole bytes. */
    public static int denseByteCount(int elementType) {
        return (bitCount(elementType) + 7) / 8;
    }

    /**
     * Bytes {@code elementCount} densely packed elements occupy: {@code ceil(count * bits / 8)},
     * so eight {@code i4} take 4 bytes.
     *
     * @throws StatusException OUT_OF_RANGE if {@code elementCount} is negative or the size
     *     overflows 64 bits
     */
    public static long packedByteCount(int elementType, long elementCount) {
        if (elementCount < 0) {
            throw new StatusException(StatusCode.OUT_OF_RANGE,
                    "element count " + elementCount + " is negative");
        }
        try {
            return Math.addExact(Math.multiplyExact(elementCount, (long) bitCount(elementType)), 7)
                    / 8;
        } catch (ArithmeticException e) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, elementCount + " elements of "
                    + format(elementType) + " overflow a 64-bit byte length");
        }
    }

    /**
     * Formats {@code elementType} as IREE does: the 8-bit floats by name ({@code f8E4M3FN}),
     * booleans as {@code i1}, otherwise a prefix ({@code i}, {@code si}, {@code ui}, {@code f},
     * {@code bf}, {@code cf}, or {@code *} for opaque and unknown numerical types) followed by
     * the bit count. Never fails.
     */
    public static String format(int elementType) {
        for (int i = 0; i < SMALL_FLOATS.length; i++) {
            if (SMALL_FLOATS[i] == elementType) {
                return SMALL_FLOAT_NAMES[i];
            }
        }
        int bits = bitCount(elementType);
        return switch (numericalType(elementType)) {
            case NUMERICAL_TYPE_BOOLEAN -> "i1";
            case NUMERICAL_TYPE_INTEGER -> "i" + bits;
            case NUMERICAL_TYPE_INTEGER_SIGNED -> "si" + bits;
            case NUMERICAL_TYPE_INTEGER_UNSIGNED -> "ui" + bits;
            case NUMERICAL_TYPE_FLOAT_IEEE -> "f" + bits;
            case NUMERICAL_TYPE_FLOAT_BRAIN -> "bf" + bits;
            case NUMERICAL_TYPE_FLOAT_COMPLEX -> "cf" + bits;
            default -> "*" + bits;
        };
    }

    /**
     * Parses IREE's element type names: {@code i1} (boolean, 8 bits), the 8-bit float names
     * (case-sensitive, as IREE), or a prefix from {@link #format} ({@code x} is accepted as well
     * as {@code *} for opaque) followed by a decimal bit count 0..255.
     *
     * @throws StatusException INVALID_ARGUMENT naming the text if the prefix is unknown or the
     *     bit count missing, malformed or above 255
     */
    public static int parse(String text) {
        if (text == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "element type text is null");
        }
        if (text.equals("i1")) {
            return BOOL_8;
        }
        for (int i = 0; i < SMALL_FLOAT_NAMES.length; i++) {
            if (SMALL_FLOAT_NAMES[i].equals(text)) {
                return SMALL_FLOATS[i];
            }
        }
        for (int i = 0; i < PREFIXES.length; i++) {
            if (text.startsWith(PREFIXES[i])) {
                return make(PREFIX_TYPES[i], parseBitCount(text, PREFIXES[i].length()));
            }
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT,
                "unhandled element type prefix in '" + text + "'");
    }

    private static int parseBitCount(String text, int start) {
        int n = text.length() - start;
        boolean digits = n > 0 && n <= 3;
        for (int i = start; digits && i < text.length(); i++) {
            char c = text.charAt(i);
            digits = c >= '0' && c <= '9';
        }
        int bits = digits ? Integer.parseInt(text, start, text.length(), 10) : -1;
        if (bits < 0 || bits > 0xFF) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "out of range bit count in '" + text + "'");
        }
        return bits;
    }
}
