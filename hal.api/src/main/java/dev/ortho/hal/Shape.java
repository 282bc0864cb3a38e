package dev.ortho.hal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;

/**
 * Buffer view shapes in IREE's text form ({@code iree_hal_parse_shape} /
 * {@code iree_hal_format_shape}): dimensions joined by {@code x}, e.g. {@code 2x2x3}; the empty
 * string is rank 0 (a scalar). Shapes are {@code long[]} of non-negative dimensions.
 *
 * <p>As in IREE there are no dynamic dimensions in the text form ({@code ?} is malformed); a
 * dimension is a C integer (decimal, or octal with a leading {@code 0}) up to
 * {@link Long#MAX_VALUE}, optionally surrounded by whitespace.
 *
 * <p>Not instantiable; every method is pure and thread-safe and never keeps its argument.
 */
public final class Shape {
    private Shape() {
    }

    /**
     * Parses {@code text}: {@code ""} is rank 0, {@code "0"} a single dimension of 0,
     * {@code " 1 x 2 "} is {@code [1, 2]}.
     *
     * @throws StatusException INVALID_ARGUMENT naming the text and the bad dimension's index if a
     *     dimension is empty ({@code 1x}, {@code x1}, {@code 1xx2}), negative or not a number
     */
    public static long[] parse(String text) {
        if (text == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "shape text is null");
        }
        if (text.isEmpty()) {
            return new long[0];
        }
        int rank = 1;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == 'x') {
                rank++;
            }
        }
        long[] dims = new long[rank];
        int start = 0;
        for (int d = 0; d < rank; d++) {
            int end = text.indexOf('x', start);
            if (end < 0) {
                end = text.length();
            }
            dims[d] = parseDim(text, text.substring(start, end).strip(), d);
            start = end + 1;
        }
        return dims;
    }

    private static long parseDim(String text, String dim, int index) {
        String digits = dim.startsWith("+") ? dim.substring(1) : dim;
        int radix = digits.length() > 1 && digits.charAt(0) == '0' ? 8 : 10;
        boolean valid = !digits.isEmpty();
        for (int i = 0; valid && i < digits.length(); i++) {
            char c = digits.charAt(i);
            valid = c <= 'z' && Character.digit(c, radix) >= 0;
        }
        if (valid) {
            try {
                return Long.parseLong(digits, radix);
            } catch (NumberFormatException e) {
                // above Long.MAX_VALUE: reported below like any other bad dimension
            }
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT,
                "shape[" + index + "] invalid value '" + dim + "' of '" + text + "'");
    }

    /** Formats {@code shape}: {@code [2, 3]} is {@code "2x3"}, rank 0 is {@code ""}. */
    public static String format(long[] shape) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < shape.length; i++) {
            if (i > 0) {
                out.append('x');
            }
            out.append(Long.toUnsignedString(shape[i]));
        }
        return out.toString();
    }

    /**
     * Returns the product of the dimensions (1 for rank 0).
     *
     * @throws StatusException OUT_OF_RANGE naming the shape if a dimension is negative or the
     *     product overflows a {@code long}
     */
    public static long elementCount(long[] shape) {
        long count = 1;
        for (long dim : shape) {
            if (dim < 0) {
                throw new StatusException(StatusCode.OUT_OF_RANGE,
                        "shape " + format(shape) + " has a negative dimension");
            }
            try {
                count = Math.multiplyExact(count, dim);
            } catch (ArithmeticException e) {
                throw new StatusException(StatusCode.OUT_OF_RANGE,
                        "shape " + format(shape) + " has more than 2^63 elements");
            }
        }
        return count;
    }
}
