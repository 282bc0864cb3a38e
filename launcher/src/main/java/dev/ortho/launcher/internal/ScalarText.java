package dev.ortho.launcher.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.ValueType;
import dev.ortho.vm.Variant;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Scalar {@code --input=} parsing and {@code result[i]:} printing as IREE's tools do
 * ({@code tooling/function_io.c}): integers as C {@code strtol(…, 0)} reads them (decimal,
 * {@code 0x} hex, leading-zero octal; wider values truncated to the type), floats as
 * {@code strtof}/{@code strtod}; {@code (null)} and {@code (ignored)} give zero. Results print
 * as {@code i32=5}, {@code i64=-1}, {@code f32=%g}, {@code f64=%g} (C's {@code %g}: six
 * significant digits, trailing zeros removed). Unlike C, trailing garbage is an error.
 *
 * <p>Integer ranges: an {@code i32} takes [-2<sup>31</sup>, 2<sup>32</sup>-1] (a signless
 * 32-bit pattern, as IREE's buffer-view parser takes {@code i8}/{@code i16} elements), an
 * {@code i64} takes [-2<sup>63</sup>, 2<sup>63</sup>-1] (C's {@code strtoll}). Anything else is
 * INVALID_ARGUMENT. (IREE's {@code iree_string_view_atoi_int32} means to reject it too, but on
 * LP64 hosts its {@code strtol} is 64 bits wide and the cast wraps {@code 99999999999} silently.)
 */
final class ScalarText {
    private static final Pattern INTEGER = Pattern.compile("[+-]?(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)");
    private static final Pattern DECIMAL_FLOAT =
            Pattern.compile("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?");
    private static final Pattern HEX_FLOAT =
            Pattern.compile("[+-]?0[xX]([0-9a-fA-F]+\\.?[0-9a-fA-F]*|\\.[0-9a-fA-F]+)([pP][+-]?[0-9]+)?");

    private ScalarText() {
    }

    /**
     * Parses {@code text} as a value of cconv type {@code type} ({@code i}, {@code I},
     * {@code f}, {@code F}).
     *
     * @throws StatusException INVALID_ARGUMENT {@code parsing value `x` as i32}, UNIMPLEMENTED
     *     for ref arguments (buffer views come with the HAL module)
     */
    static Variant parse(String text, char type) {
        return parse(text, type, -1);
    }

    /**
     * As {@link #parse(String, char)} for function input {@code index} (named in range errors
     * when not negative).
     *
     * @throws StatusException INVALID_ARGUMENT {@code parsing value `99999999999` as i32 (input
     *     0): outside [-2147483648, 4294967295]} for an integer outside the type's range
     */
    static Variant parse(String text, char type, int index) {
        String value = text.strip();
        if (value.isEmpty()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "no value specified for input");
        }
        boolean zero = value.equals("(null)") || value.equals("(ignored)");
        return switch (type) {
            case 'i' -> Variant.i32(zero ? 0 : (int) integer(value, "i32", index,
                    Integer.MIN_VALUE, 0xFFFF_FFFFL));
            case 'I' -> Variant.i64(zero ? 0 : integer(value, "i64", index, Long.MIN_VALUE, Long.MAX_VALUE));
            case 'f' -> Variant.f32(zero ? 0f : (float) floating(value, "f32"));
            case 'F' -> Variant.f64(zero ? 0d : floating(value, "f64"));
            case 'r' -> throw new StatusException(StatusCode.UNIMPLEMENTED, "ref argument `" + value
                    + "`: only scalar i32/i64/f32/f64 inputs are supported by run-module (buffer views need the HAL module)");
            default -> throw new StatusException(StatusCode.UNIMPLEMENTED, "unimplemented cconv type `" + type + "`");
        };
    }

    private static long integer(String text, String type, int index, long min, long max) {
        if (!INTEGER.matcher(text).matches()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "parsing value `" + text + "` as " + type);
        }
        boolean negative = text.startsWith("-");
        String digits = text.startsWith("+") || negative ? text.substring(1) : text;
        int radix = 10;
        if (digits.startsWith("0x") || digits.startsWith("0X")) {
            radix = 16;
            digits = digits.substring(2);
        } else if (digits.length() > 1 && digits.startsWith("0")) {
            radix = 8;
        }
        BigInteger value = new BigInteger(digits, radix);
        if (negative) {
            value = value.negate();
        }
        if (value.compareTo(BigInteger.valueOf(min)) < 0 || value.compareTo(BigInteger.valueOf(max)) > 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "parsing value `" + text + "` as " + type
                    + (index >= 0 ? " (input " + index + ")" : "") + ": outside [" + min + ", " + max + "]");
        }
        return value.longValue();
    }

    private static double floating(String text, String type) {
        String lower = text.toLowerCase(Locale.ROOT);
        String unsigned = lower.startsWith("-") || lower.startsWith("+") ? lower.substring(1) : lower;
        double sign = lower.startsWith("-") ? -1 : 1;
        if (unsigned.equals("inf") || unsigned.equals("infinity")) {
            return sign * Double.POSITIVE_INFINITY;
        }
        if (unsigned.equals("nan")) {
            return sign < 0 ? -Double.NaN : Double.NaN;
        }
        if (HEX_FLOAT.matcher(text).matches()) {
            return Double.parseDouble(lower.contains("p") ? text : text + "p0");
        }
        if (DECIMAL_FLOAT.matcher(text).matches()) {
            return Double.parseDouble(text);
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT, "parsing value `" + text + "` as " + type);
    }

    /** {@code i32=5}, {@code f32=-3.14}, … for a result variant. */
    static String format(Variant value) {
        if (value.isEmpty()) {
            return "(null)";
        }
        if (value.isRef()) {
            return value.refType().name() + "\n(no printer)";
        }
        ValueType type = value.valueType();
        return switch (type) {
            case I8 -> "i8=" + (byte) value.asI32();
            case I16 -> "i16=" + (short) value.asI32();
            case I32 -> "i32=" + value.asI32();
            case I64 -> "i64=" + value.asI64();
            case F32 -> "f32=" + formatG(value.asF32());
            case F64 -> "f64=" + formatG(value.asF64());
            default -> "?";
        };
    }

    /** C's {@code %g}: 6 significant digits, {@code %e} form for exponents below -4 or from 6 on. */
    static String formatG(double v) {
        if (Double.isNaN(v)) {
            return (Double.doubleToRawLongBits(v) < 0) ? "-nan" : "nan";
        }
        if (Double.isInfinite(v)) {
            return v < 0 ? "-inf" : "inf";
        }
        if (v == 0) {
            return (1 / v < 0) ? "-0" : "0";
        }
        BigDecimal rounded = new BigDecimal(v).round(new MathContext(6, RoundingMode.HALF_EVEN));
        int exponent = rounded.precision() - rounded.scale() - 1;
        if (exponent < -4 || exponent >= 6) {
            BigDecimal mantissa = rounded.movePointLeft(exponent);
            String digits = stripZeros(mantissa.setScale(5, RoundingMode.UNNECESSARY).toPlainString());
            return digits + (exponent < 0 ? "e-" : "e+") + (Math.abs(exponent) < 10 ? "0" : "") + Math.abs(exponent);
        }
        return stripZeros(rounded.setScale(Math.max(0, 5 - exponent), RoundingMode.UNNECESSARY).toPlainString());
    }

    private static String stripZeros(String text) {
        if (text.indexOf('.') < 0) {
            return text;
        }
        int end = text.length();
        while (text.charAt(end - 1) == '0') {
            end--;
        }
        if (text.charAt(end - 1) == '.') {
            end--;
        }
        return text.substring(0, end);
    }
}
