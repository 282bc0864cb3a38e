package dev.ortho.base;

/**
 * Makes untrusted text safe to put into a status message. A module file, a peer or a user can
 * supply names and strings with NUL bytes, terminal escape sequences or line breaks; echoed raw, they
 * corrupt the message (a C reader stops at the NUL, a terminal obeys the escapes, a log line
 * splits). Every message that echoes such text passes it through {@link #printable}.
 *
 * <p>Stateless and thread-safe.
 */
public final class MessageText {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private MessageText() {
    }

    /**
     * {@code text} with every character that does not print as itself escaped, C style: a
     * backslash as {@code \\}, control characters up to U+00FF as {@code \xNN} (NUL is
     * {@code \x00}, a line feed {@code \x0A}), and other non-printing characters (format characters
     * such as U+202E, line/paragraph separators, unassigned code points, unpaired surrogates, the
     * U+FFFD that stands for a malformed UTF-8 byte) as {@code \}{@code uNNNN}. Printable text,
     * including letters of every script, is returned as it is (the same instance when nothing
     * needed escaping). {@code null} reads as {@code "null"}.
     */
    public static String printable(CharSequence text) {
        if (text == null) {
            return "null";
        }
        int length = text.length();
        int i = 0;
        for (int n; i < length && (n = printsAsItself(text, i)) > 0; i += n) {
            // the printable prefix
        }
        if (i == length) {
            return text.toString();
        }
        StringBuilder out = new StringBuilder(length + 16).append(text, 0, i);
        while (i < length) {
            char c = text.charAt(i);
            int n = printsAsItself(text, i);
            if (n > 0) {
                out.append(text, i, i + n);
                i += n;
                continue;
            }
            i++;
            if (c == '\\') {
                out.append("\\\\");
            } else if (c <= 0xFF) {
                out.append("\\x").append(HEX[c >> 4]).append(HEX[c & 0xF]);
            } else {
                out.append("\\u").append(HEX[c >> 12]).append(HEX[(c >> 8) & 0xF]).append(HEX[(c >> 4) & 0xF])
                        .append(HEX[c & 0xF]);
            }
        }
        return out.toString();
    }

    /**
     * The number of chars at {@code i} that print as themselves: 1, 2 for a printable surrogate
     * pair, 0 if the char at {@code i} needs escaping.
     */
    private static int printsAsItself(CharSequence text, int i) {
        char c = text.charAt(i);
        if (c >= 0x20 && c < 0x7F) {
            return c != '\\' ? 1 : 0;
        }
        if (Character.isHighSurrogate(c)) {
            boolean pair = i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1));
            return pair && printable(Character.toCodePoint(c, text.charAt(i + 1))) ? 2 : 0;
        }
        return !Character.isSurrogate(c) && c != 0xFFFD && printable(c) ? 1 : 0;
    }

    private static boolean printable(int codePoint) {
        return switch (Character.getType(codePoint)) {
            case Character.CONTROL, Character.FORMAT, Character.UNASSIGNED, Character.PRIVATE_USE,
                 Character.SURROGATE, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR -> false;
            default -> true;
        };
    }
}
