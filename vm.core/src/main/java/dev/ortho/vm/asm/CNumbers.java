package dev.ortho.vm.asm;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.regex.Pattern;

/**
 * Number text as IREE's C tools read and print it: integers in C literal syntax (decimal,
 * {@code 0x} hex, leading-{@code 0} octal, optional sign) and floats printed with {@code %.9g}
 * (f32) and {@code %.17g} (f64), read back like {@code strtof}/{@code strtod}
 * ({@code nan}, {@code inf}, decimal and hex-float forms). Stateless.
 */
final class CNumbers {
    private static final Pattern DECIMAL_FLOAT =
            Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");
    private static final Pattern HEX_FLOAT =
            Pattern.compile("[+-]?0[xX]([0-9a-fA-F]+\\.?[0-9a-fA-F]*|\\.[0-9a-fA-F]+)([pP][+-]?\\d+)?");

    private CNumbers() {
    }

    /** Parses a C integer literal; null if {@code text} is not one (or does not fit 64 bits unsigned). */
    static BigInteger parseInteger(String text) {
        String t = text;
        boolean negative = false;
        if (t.startsWith("-") || t.startsWith("+")) {
            negative = t.charAt(0) == '-';
            t = t.substring(1);
        }
        int radix = 10;
        if (t.startsWith("0x") || t.startsWith("0X")) {
            radix = 16;
            t = t.substring(2);
        } else if (t.length() > 1 && t.charAt(0) == '0') {
            radix = 8;
            t = t.substring(1);
        }
        if (t.isEmpty() || t.length() > 24) {
            return null;
        }
        for (int i = 0; i < t.length(); i++) {
            if (Character.digit(t.charAt(i), radix) < 0) {
                return null;
            }
        }
        BigInteger value = new BigInteger(t, radix);
        return negative ? value.negate() : value;
    }

    /** Formats like C's {@code printf("%.<precision>g", value)} (glibc spelling of nan/inf). */
    static String formatG(double value, int precision) {
        boolean negative = (Double.doubleToRawLongBits(value) & Long.MIN_VALUE) != 0;
        String sign = negative ? "-" : "";
        if (Double.isNaN(value)) {
            return sign + "nan";
        }
        if (Double.isInfinite(value)) {
            return sign + "inf";
        }
        if (value == 0) {
            return sign + "0";
        }
        BigDecimal rounded = new BigDecimal(Math.abs(value)).round(new MathContext(precision, RoundingMode.HALF_EVEN));
        int exponent = rounded.precision() - rounded.scale() - 1;
        if (exponent < -4 || exponent >= precision) {
            String digits = rounded.unscaledValue().toString();
            int end = digits.length();
            while (end > 1 && digits.charAt(end - 1) == '0') {
                end--;
            }
            StringBuilder sb = new StringBuilder(sign).append(digits.charAt(0));
            if (end > 1) {
                sb.append('.').append(digits, 1, end);
            }
            sb.append('e').append(exponent < 0 ? '-' : '+');
            int abs = Math.abs(exponent);
            if (abs < 10) {
                sb.append('0');
            }
            return sb.append(abs).toString();
        }
        String plain = rounded.toPlainString();
        if (plain.indexOf('.') >= 0) {
            int end = plain.length();
            while (plain.charAt(end - 1) == '0') {
                end--;
            }
            if (plain.charAt(end - 1) == '.') {
                end--;
            }
            plain = plain.substring(0, end);
        }
        return sign + plain;
    }

    /**
     * Parses a float literal like {@code strtod}: decimal, hex float, {@code inf}/{@code infinity},
     * {@code nan} (optionally signed). Returns null for malformed text; a finite literal whose value
     * overflows to infinity in the target precision is malformed too ({@code ERANGE}).
     */
    static Double parseF64(String text) {
        Double special = special(text);
        if (special != null) {
            return special;
        }
        if (!DECIMAL_FLOAT.matcher(text).matches() && !HEX_FLOAT.matcher(text).matches()) {
            return null;
        }
        double v = Double.parseDouble(hexWithExponent(text));
        return Double.isInfinite(v) ? null : v;
    }

    /** As {@link #parseF64} rounding directly to f32 (like {@code strtof}). */
    static Float parseF32(String text) {
        Double special = special(text);
        if (special != null) {
            return (float) (double) special;
        }
        if (!DECIMAL_FLOAT.matcher(text).matches() && !HEX_FLOAT.matcher(text).matches()) {
            return null;
        }
        float v = Float.parseFloat(hexWithExponent(text));
        return Float.isInfinite(v) ? null : v;
    }

    private static Double special(String text) {
        String t = text.toLowerCase();
        boolean negative = t.startsWith("-");
        if (negative || t.startsWith("+")) {
            t = t.substring(1);
        }
        if (t.equals("inf") || t.equals("infinity")) {
            return negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        if (t.equals("nan")) {
            return Double.longBitsToDouble(negative ? 0xFFF8000000000000L : 0x7FF8000000000000L);
        }
        return null;
    }

    /** Java requires the binary exponent of a hex float; C does not. */
    private static String hexWithExponent(String text) {
        if (HEX_FLOAT.matcher(text).matches() && text.indexOf('p') < 0 && text.indexOf('P') < 0) {
            return text + "p0";
        }
        return text;
    }
}
