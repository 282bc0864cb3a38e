package dev.ortho.hal.text;

import static dev.ortho.hal.ElementType.*;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.ElementType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.regex.Pattern;

/**
 * One element's text form, as IREE's {@code iree_hal_format_element} /
 * {@code iree_hal_parse_element}: integers in decimal, the IEEE, brain and 8-bit floats through
 * C's {@code %G}, and every other type (opaque, boolean, complex, sub-byte, unusual widths) as
 * upper-case hex of its bytes in memory order. Storage is little-endian; sub-byte elements are
 * packed LSB first.
 *
 * <p>Stateless and thread-safe.
 */
final class ElementText {
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final MathContext SIX_DIGITS = new MathContext(6, RoundingMode.HALF_EVEN);
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();
    /** What C's strtod accepts, less leading space and trailing garbage (Ortho is strict). */
    private static final Pattern DECIMAL_FLOAT =
            Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");
    private static final Pattern HEX_FLOAT = Pattern.compile(
            "[+-]?0[xX]([0-9a-fA-F]+\\.?[0-9a-fA-F]*|\\.[0-9a-fA-F]+)([pP][+-]?\\d+)?");
    private static final Pattern INF = Pattern.compile("[+-]?(?i:inf|infinity)");
    private static final Pattern NAN = Pattern.compile("[+-]?(?i:nan)(\\([0-9A-Za-z_]*\\))?");

    private ElementText() {
    }

    /** Appends element {@code index} of {@code contents}. */
    static void format(StringBuilder out, MemorySegment contents, long index, int type) {
        if (type == INT_8 || type == SINT_8) {
            out.append(contents.get(ValueLayout.JAVA_BYTE, index));
        } else if (type == UINT_8) {
            out.append(Byte.toUnsignedInt(contents.get(ValueLayout.JAVA_BYTE, index)));
        } else if (type == INT_16 || type == SINT_16) {
            out.append(contents.get(I16, index * 2));
        } else if (type == UINT_16) {
            out.append(Short.toUnsignedInt(contents.get(I16, index * 2)));
        } else if (type == INT_32 || type == SINT_32) {
            out.append(contents.get(I32, index * 4));
        } else if (type == UINT_32) {
            out.append(Integer.toUnsignedLong(contents.get(I32, index * 4)));
        } else if (type == INT_64 || type == SINT_64) {
            out.append(contents.get(I64, index * 8));
        } else if (type == UINT_64) {
            out.append(Long.toUnsignedString(contents.get(I64, index * 8)));
        } else if (type == FLOAT_32) {
            int bits = contents.get(I32, index * 4);
            appendG(out, Float.intBitsToFloat(bits), bits < 0);
        } else if (type == FLOAT_64) {
            long bits = contents.get(I64, index * 8);
            appendG(out, Double.longBitsToDouble(bits), bits < 0);
        } else if (type == FLOAT_16 || type == BFLOAT_16) {
            int bits = Short.toUnsignedInt(contents.get(I16, index * 2));
            appendG(out, SmallFloats.toFloat(bits, type == FLOAT_16 ? SmallFloats.F16
                    : SmallFloats.BF16), false);
        } else if (type == FLOAT_8_E8M0_FNU) {
            appendG(out, SmallFloats.e8m0ToFloat(byteAt(contents, index)), false);
        } else if (smallFloat(type) != null) {
            appendG(out, SmallFloats.toFloat(byteAt(contents, index), smallFloat(type)), false);
        } else {
            for (byte b : readRaw(contents, index, type)) {
                out.append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
            }
        }
    }

    /**
     * Parses {@code token} and stores it as element {@code index} of {@code contents}.
     *
     * @throws StatusException INVALID_ARGUMENT naming the token and the type if it is malformed
     *     or out of the type's range
     */
    static void parse(String token, MemorySegment contents, long index, int type) {
        if (type == INT_8 || type == SINT_8 || type == UINT_8) {
            long v = parseInteger(token, type, type == UINT_8 ? 0 : -0x80,
                    type == SINT_8 ? 0x7F : 0xFF);
            contents.set(ValueLayout.JAVA_BYTE, index, (byte) v);
        } else if (type == INT_16 || type == SINT_16 || type == UINT_16) {
            long v = parseInteger(token, type, type == UINT_16 ? 0 : -0x8000,
                    type == SINT_16 ? 0x7FFF : 0xFFFF);
            contents.set(I16, index * 2, (short) v);
        } else if (type == INT_32 || type == SINT_32 || type == UINT_32) {
            long v = parseInteger(token, type, type == UINT_32 ? 0 : Integer.MIN_VALUE,
                    type == SINT_32 ? Integer.MAX_VALUE : 0xFFFF_FFFFL);
            contents.set(I32, index * 4, (int) v);
        } else if (type == INT_64 || type == SINT_64 || type == UINT_64) {
            long v = parseInteger(token, type, type == UINT_64 ? 0 : Long.MIN_VALUE,
                    type == UINT_64 ? -1L : Long.MAX_VALUE);
            contents.set(I64, index * 8, v);
        } else if (type == FLOAT_64) {
            double d = parseFloat(token, type, true);
            contents.set(I64, index * 8, Double.doubleToRawLongBits(d));
        } else if (type == FLOAT_32) {
            float f = parseFloat32(token, type);
            contents.set(I32, index * 4, Float.floatToRawIntBits(f));
        } else if (type == FLOAT_16 || type == BFLOAT_16) {
            float f = parseFloat32(token, type);
            int bits = SmallFloats.fromFloat(f,
                    type == FLOAT_16 ? SmallFloats.F16 : SmallFloats.BF16);
            contents.set(I16, index * 2, (short) bits);
        } else if (type == FLOAT_8_E8M0_FNU) {
            float f = parseFloat32(token, type);
            contents.set(ValueLayout.JAVA_BYTE, index, (byte) SmallFloats.floatToE8m0(f));
        } else if (smallFloat(type) != null) {
            float f = parseFloat32(token, type);
            byte bits = (byte) SmallFloats.fromFloat(f, smallFloat(type));
            contents.set(ValueLayout.JAVA_BYTE, index, bits);
        } else {
            writeRaw(contents, index, type, parseHex(token, type));
        }
    }

    private static SmallFloats.Format smallFloat(int type) {
        if (type == FLOAT_8_E5M2) {
            return SmallFloats.F8E5M2;
        } else if (type == FLOAT_8_E4M3_FN) {
            return SmallFloats.F8E4M3FN;
        } else if (type == FLOAT_8_E5M2_FNUZ) {
            return SmallFloats.F8E5M2FNUZ;
        } else if (type == FLOAT_8_E4M3_FNUZ) {
            return SmallFloats.F8E4M3FNUZ;
        }
        return null;
    }

    private static int byteAt(MemorySegment contents, long index) {
        return Byte.toUnsignedInt(contents.get(ValueLayout.JAVA_BYTE, index));
    }

    /**
     * Appends {@code v} as C's {@code printf("%G")}: six significant digits, fixed notation for
     * decimal exponents -4..5 and otherwise {@code d.dddddE+XX}, trailing zeros dropped,
     * {@code INF}/{@code NAN} in upper case, signed zero kept.
     */
    static void appendG(StringBuilder out, double v, boolean negativeNan) {
        if (Double.isNaN(v)) {
            out.append(negativeNan ? "-NAN" : "NAN");
            return;
        }
        if (Double.doubleToRawLongBits(v) < 0) {
            out.append('-');
            v = -v;
        }
        if (Double.isInfinite(v)) {
            out.append("INF");
            return;
        }
        if (v == 0) {
            out.append('0');
            return;
        }
        BigDecimal rounded = new BigDecimal(v).round(SIX_DIGITS);
        int exponent = rounded.precision() - rounded.scale() - 1;
        if (exponent >= -4 && exponent < 6) {
            out.append(rounded.stripTrailingZeros().toPlainString());
            return;
        }
        String digits = rounded.unscaledValue().toString().replaceFirst("0+$", "");
        out.append(digits.charAt(0));
        if (digits.length() > 1) {
            out.append('.').append(digits, 1, digits.length());
        }
        out.append('E').append(exponent < 0 ? '-' : '+');
        int magnitude = Math.abs(exponent);
        if (magnitude < 10) {
            out.append('0');
        }
        out.append(magnitude);
    }

    /**
     * Parses an integer as C's {@code strtol} with base 0 ({@code 0x} hex, leading-zero octal,
     * decimal; optional sign) and checks it against [lo, hi] ({@code hi} unsigned when
     * {@code lo == 0}).
     */
    private static long parseInteger(String token, int type, long lo, long hi) {
        int i = 0;
        boolean negative = false;
        if (!token.isEmpty() && (token.charAt(0) == '+' || token.charAt(0) == '-')) {
            negative = token.charAt(0) == '-';
            i = 1;
        }
        int radix = 10;
        if (token.startsWith("0x", i) || token.startsWith("0X", i)) {
            radix = 16;
            i += 2;
        } else if (token.startsWith("0", i) && token.length() > i + 1) {
            radix = 8;
            i += 1;
        }
        if (i == token.length()) {
            throw malformed(token, type);
        }
        for (int j = i; j < token.length(); j++) {
            char c = token.charAt(j);
            if (c > 'z' || Character.digit(c, radix) < 0) {
                throw malformed(token, type);
            }
        }
        long magnitude;
        try {
            magnitude = Long.parseUnsignedLong(token, i, token.length(), radix);
        } catch (NumberFormatException e) {
            throw outOfRange(token, type, lo, hi);
        }
        if (lo == 0) {
            if (negative && magnitude != 0 || Long.compareUnsigned(magnitude, hi) > 0) {
                throw outOfRange(token, type, lo, hi);
            }
            return magnitude;
        }
        if (negative ? Long.compareUnsigned(magnitude, Long.MIN_VALUE) > 0 || -magnitude < lo
                : magnitude < 0 || magnitude > hi) {
            throw outOfRange(token, type, lo, hi);
        }
        return negative ? -magnitude : magnitude;
    }

    /** {@link #parseFloat} rounded once to f32, keeping a NaN's sign. */
    private static float parseFloat32(String token, int type) {
        if (NAN.matcher(token).matches()) {
            return Float.intBitsToFloat(token.charAt(0) == '-' ? 0xFFC0_0000 : 0x7FC0_0000);
        }
        return (float) parseFloat(token, type, false);
    }

    /**
     * Parses a float as C's {@code strtod} / {@code strtof} (decimal, hex, {@code inf},
     * {@code infinity}, {@code nan}, {@code nan(...)}, case-insensitive, signed); as IREE, a
     * non-zero literal that underflows to zero is rejected while overflow gives infinity.
     */
    private static double parseFloat(String token, int type, boolean isDouble) {
        if (NAN.matcher(token).matches()) {
            return Double.longBitsToDouble(
                    token.charAt(0) == '-' ? 0xFFF8_0000_0000_0000L : 0x7FF8_0000_0000_0000L);
        }
        if (INF.matcher(token).matches()) {
            return token.charAt(0) == '-' ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        String javaForm;
        if (DECIMAL_FLOAT.matcher(token).matches()) {
            javaForm = token;
        } else if (HEX_FLOAT.matcher(token).matches()) {
            javaForm = token.indexOf('p') < 0 && token.indexOf('P') < 0 ? token + "p0" : token;
        } else {
            throw malformed(token, type);
        }
        double value;
        try {
            value = isDouble ? Double.parseDouble(javaForm) : Float.parseFloat(javaForm);
        } catch (NumberFormatException e) {
            throw malformed(token, type);
        }
        if (value == 0 && hasNonZeroDigit(token)) {
            throw outOfRange(token, type);
        }
        return value;
    }

    /** True if the mantissa of a decimal or hex float literal has a non-zero digit. */
    private static boolean hasNonZeroDigit(String token) {
        int x = Math.max(token.indexOf('x'), token.indexOf('X'));
        boolean hex = x >= 0;
        for (int i = x + 1; i < token.length(); i++) {
            char c = Character.toLowerCase(token.charAt(i));
            if (c == (hex ? 'p' : 'e')) {
                return false;
            }
            if (Character.digit(c, hex ? 16 : 10) > 0) {
                return true;
            }
        }
        return false;
    }

    private static byte[] parseHex(String token, int type) {
        int size = ElementType.denseByteCount(type);
        if (token.length() != size * 2) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "binary hex element '" + token
                    + "' of " + ElementType.format(type) + " must have " + size * 2 + " hex digits");
        }
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            int hi = hexDigit(token.charAt(2 * i));
            int lo = hexDigit(token.charAt(2 * i + 1));
            if (hi < 0 || lo < 0) {
                throw malformed(token, type);
            }
            bytes[i] = (byte) (hi << 4 | lo);
        }
        int bits = ElementType.bitCount(type);
        if (bits % 8 != 0 && (bytes[size - 1] & 0xFF) >>> (bits % 8) != 0) {
            throw outOfRange(token, type);
        }
        return bytes;
    }

    private static int hexDigit(char c) {
        return c > 'f' ? -1 : Character.digit(c, 16);
    }

    /** Reads element {@code index}'s bytes; sub-byte and odd widths come from packed bits. */
    private static byte[] readRaw(MemorySegment contents, long index, int type) {
        int bits = ElementType.bitCount(type);
        byte[] out = new byte[ElementType.denseByteCount(type)];
        if (bits % 8 == 0) {
            long offset = index * out.length;
            MemorySegment.copy(contents, ValueLayout.JAVA_BYTE, offset, out, 0, out.length);
            return out;
        }
        long base = index * bits;
        for (int b = 0; b < bits; b++) {
            long bit = base + b;
            if ((byteAt(contents, bit >>> 3) >>> (bit & 7) & 1) != 0) {
                out[b >>> 3] |= (byte) (1 << (b & 7));
            }
        }
        return out;
    }

    private static void writeRaw(MemorySegment contents, long index, int type, byte[] value) {
        int bits = ElementType.bitCount(type);
        if (bits % 8 == 0) {
            long offset = index * value.length;
            MemorySegment.copy(value, 0, contents, ValueLayout.JAVA_BYTE, offset, value.length);
            return;
        }
        long base = index * bits;
        for (int b = 0; b < bits; b++) {
            long bit = base + b;
            int current = byteAt(contents, bit >>> 3);
            int mask = 1 << (bit & 7);
            int set = (value[b >>> 3] >>> (b & 7) & 1) != 0 ? current | mask : current & ~mask;
            contents.set(ValueLayout.JAVA_BYTE, bit >>> 3, (byte) set);
        }
    }

    private static StatusException malformed(String token, int type) {
        return new StatusException(StatusCode.INVALID_ARGUMENT,
                "invalid " + ElementType.format(type) + " element '" + token + "'");
    }

    private static StatusException outOfRange(String token, int type) {
        return new StatusException(StatusCode.INVALID_ARGUMENT,
                "element '" + token + "' is out of range for " + ElementType.format(type));
    }

    /** An integer element outside [lo, hi] ({@code hi} unsigned when {@code lo == 0}). */
    private static StatusException outOfRange(String token, int type, long lo, long hi) {
        return new StatusException(StatusCode.INVALID_ARGUMENT,
                "element '" + token + "' is out of range for " + ElementType.format(type) + " ["
                        + lo + ", " + (lo == 0 ? Long.toUnsignedString(hi) : Long.toString(hi)) + "]");
    }
}
