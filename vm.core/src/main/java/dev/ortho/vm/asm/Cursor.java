package dev.ortho.vm.asm;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;

/**
 * A position in one source line (comments already cut off), with the small lexical helpers of
 * VMASM. Errors it builds read {@code file:line:col: message} with a 1-based column. Not
 * thread-safe; one per line.
 */
final class Cursor {
    final String file;
    final int line;
    final String text;
    final int end;
    int pos;

    Cursor(String file, int line, String text, int start, int end) {
        this.file = file;
        this.line = line;
        this.text = text;
        this.pos = start;
        this.end = end;
    }

    /** Builds the error for a problem at the current position (after skipping spaces). */
    StatusException error(String message) {
        skipSpace();
        return errorAt(pos, message);
    }

    StatusException errorAt(int position, String message) {
        return new StatusException(StatusCode.INVALID_ARGUMENT,
                file + ":" + line + ":" + (position + 1) + ": " + message);
    }

    /** {@code expected <what>, got '<next token>'} at the current position. */
    StatusException expected(String what) {
        skipSpace();
        return errorAt(pos, "expected " + what + (pos >= end ? " at end of line" : ", got '" + peekToken() + "'"));
    }

    void skipSpace() {
        while (pos < end && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
    }

    boolean atEnd() {
        skipSpace();
        return pos >= end;
    }

    /** The next character after spaces, or 0 at the end. */
    char peek() {
        skipSpace();
        return pos < end ? text.charAt(pos) : 0;
    }

    boolean accept(char c) {
        if (peek() == c) {
            pos++;
            return true;
        }
        return false;
    }

    boolean accept(String s) {
        skipSpace();
        if (text.startsWith(s, pos) && pos + s.length() <= end) {
            pos += s.length();
            return true;
        }
        return false;
    }

    /** Accepts {@code word} only when it is followed by a non-identifier character. */
    boolean acceptWord(String word) {
        skipSpace();
        int after = pos + word.length();
        if (after <= end && text.startsWith(word, pos)
                && (after == end || !isSymbolChar(text.charAt(after)))) {
            pos = after;
            return true;
        }
        return false;
    }

    void expect(char c) {
        if (!accept(c)) {
            throw expected("'" + c + "'");
        }
    }

    void expect(String s) {
        if (!accept(s)) {
            throw expected("'" + s + "'");
        }
    }

    void expectEnd() {
        if (!atEnd()) {
            throw errorAt(pos, "unexpected '" + peekToken() + "' at end of line");
        }
    }

    static boolean isSymbolChar(char c) {
        return Character.isLetterOrDigit(c) && c < 0x80 || c == '_' || c == '$' || c == '.';
    }

    /** Reads symbol characters ({@code [A-Za-z0-9_$.]+}); empty when there are none. */
    String symbolChars() {
        int start = pos;
        while (pos < end && isSymbolChar(text.charAt(pos))) {
            pos++;
        }
        return text.substring(start, pos);
    }

    /** Reads {@code @name}; the name is returned without the {@code @}. */
    String symbol(String what) {
        skipSpace();
        int start = pos;
        if (!accept('@')) {
            throw expected(what + " like @name");
        }
        String name = symbolChars();
        if (name.isEmpty()) {
            throw errorAt(start, "expected " + what + " like @name");
        }
        return name;
    }

    /** Reads a run of characters that may form a number literal (no spaces, commas or brackets). */
    String numberToken() {
        skipSpace();
        int start = pos;
        while (pos < end) {
            char c = text.charAt(pos);
            if (Character.isLetterOrDigit(c) || c == '.' || c == '+' || c == '-' || c == '_') {
                pos++;
            } else {
                break;
            }
        }
        return text.substring(start, pos);
    }

    /** Reads a non-negative integer that fits {@code max}. */
    long unsigned(String what, long max) {
        skipSpace();
        int start = pos;
        String token = numberToken();
        java.math.BigInteger value = token.isEmpty() || token.startsWith("-") || token.startsWith("+")
                ? null : CNumbers.parseInteger(token);
        if (value == null || value.signum() < 0 || value.compareTo(java.math.BigInteger.valueOf(max)) > 0) {
            pos = start;
            throw expected(what + " (0.." + max + ")");
        }
        return value.longValue();
    }

    /** Reads a double-quoted string (no escapes, as IREE's VMASM). */
    String quoted(String what) {
        skipSpace();
        int start = pos;
        if (!accept('"')) {
            throw expected(what + " in double quotes");
        }
        int close = text.indexOf('"', pos);
        if (close < 0 || close >= end) {
            throw errorAt(start, "unterminated string");
        }
        String value = text.substring(pos, close);
        pos = close + 1;
        return value;
    }

    /**
     * Reads a type name such as {@code i32}, {@code !vm.buffer} or {@code !vm.list<!vm.list<i8>>}:
     * everything up to a space, comma or closing parenthesis outside angle brackets.
     */
    String type(String what) {
        skipSpace();
        int start = pos;
        int depth = 0;
        while (pos < end) {
            char c = text.charAt(pos);
            if (c == '<') {
                depth++;
            } else if (c == '>') {
                if (depth == 0) {
                    break;
                }
                depth--;
            } else if (depth == 0 && (Character.isWhitespace(c) || c == ',' || c == ')' || c == '}'
                    || (c == '-' && pos + 1 < end && text.charAt(pos + 1) == '>'))) {
                break;
            }
            pos++;
        }
        if (pos == start || depth != 0) {
            pos = start;
            throw expected(what);
        }
        return text.substring(start, pos);
    }

    /** The next whitespace-delimited token (for messages). */
    String peekToken() {
        int p = pos;
        while (p < end && Character.isWhitespace(text.charAt(p))) {
            p++;
        }
        int start = p;
        while (p < end && !Character.isWhitespace(text.charAt(p)) && text.charAt(p) != ',') {
            p++;
        }
        if (p == start && p < end) {
            p++;
        }
        return text.substring(start, Math.min(p, start + 40));
    }
}
