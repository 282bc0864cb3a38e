package dev.ortho.hal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.util.Locale;

/**
 * IREE's bitfield text form ({@code iree_bitfield_format} / {@code iree_bitfield_parse}) over a
 * table of named bit sets, shared by the bitfield classes of this package.
 *
 * <p>Formatting walks the table in order and emits every entry whose bits are all still set,
 * clearing them as it goes, so combined names listed first win over their parts
 * ({@code HOST_LOCAL} rather than {@code HOST_VISIBLE|HOST_COHERENT|40h}); bits no entry covers
 * are appended as upper-case hex with an {@code h} suffix; zero formats as the empty string.
 * Parsing splits on {@code |}, trims each part, skips empty parts, matches names
 * case-insensitively and accepts numbers as decimal, {@code 0x}-prefixed hex or {@code h}-suffixed
 * hex (the form formatting emits).
 *
 * <p>Immutable and thread-safe.
 */
final class BitfieldText {
    private final String what;
    private final long[] bits;
    private final String[] names;
    private final long validMask;

    /**
     * @param what the bitfield's name for error messages, e.g. {@code "memory type"}
     * @param validMask the bits a value may carry ({@code 0xFFFFFFFFL} for 32-bit fields)
     * @param table alternating {@code Long} bits and {@code String} names, in priority order
     */
    BitfieldText(String what, long validMask, Object... table) {
        this.what = what;
        this.validMask = validMask;
        this.bits = new long[table.length / 2];
        this.names = new String[table.length / 2];
        for (int i = 0; i < bits.length; i++) {
            bits[i] = ((Number) table[2 * i]).longValue();
            names[i] = (String) table[2 * i + 1];
        }
    }

    String format(long value) {
        StringBuilder out = new StringBuilder();
        long remaining = value & validMask;
        for (int i = 0; i < bits.length; i++) {
            if ((remaining & bits[i]) == bits[i]) {
                if (!out.isEmpty()) {
                    out.append('|');
                }
                out.append(names[i]);
                remaining &= ~bits[i];
            }
        }
        if (remaining != 0) {
            if (!out.isEmpty()) {
                out.append('|');
            }
            out.append(Long.toHexString(remaining).toUpperCase(Locale.ROOT)).append('h');
        }
        return out.toString();
    }

    long parse(String text) {
        if (text == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " text is null");
        }
        long value = 0;
        int start = 0;
        while (start <= text.length()) {
            int bar = text.indexOf('|', start);
            int end = bar < 0 ? text.length() : bar;
            String part = text.substring(start, end).strip();
            if (!part.isEmpty()) {
                value |= parsePart(text, part);
            }
            start = end + 1;
        }
        return value;
    }

    private long parsePart(String text, String part) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equalsIgnoreCase(part)) {
                return bits[i];
            }
        }
        Long number = parseNumber(part);
        if (number == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "unrecognized " + what + " bitfield member '" + part + "' in '" + text + "'");
        }
        if ((number & ~validMask) != 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    what + " bitfield member '" + part + "' in '" + text + "' exceeds "
                            + Long.bitCount(validMask) + " bits");
        }
        return number;
    }

    /** Returns the value of a numeric member, or null if {@code part} is not a 64-bit number. */
    private static Long parseNumber(String part) {
        String digits;
        int radix;
        if (part.length() > 2 && (part.startsWith("0x") || part.startsWith("0X"))) {
            digits = part.substring(2);
            radix = 16;
        } else if (part.length() > 1 && (part.endsWith("h") || part.endsWith("H"))) {
            digits = part.substring(0, part.length() - 1);
            radix = 16;
        } else {
            digits = part;
            radix = 10;
        }
        if (digits.chars().anyMatch(c -> c > 'z' || Character.digit(c, radix) < 0)) {
            return null;
        }
        try {
            return Long.parseUnsignedLong(digits, radix);
        } catch (NumberFormatException e) {
            return null; // more than 64 bits
        }
    }
}
