package dev.ortho.launcher.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Just enough JSON for {@code models/manifest.json} (objects, arrays, strings with the standard
 * escapes, numbers, true/false/null), read into maps, lists, strings, doubles, booleans and null.
 * A malformed document is an {@link IllegalArgumentException} naming the offset.
 */
final class MiniJson {
    private final String text;
    private int at;

    private MiniJson(String text) {
        this.text = text;
    }

    static Object parse(String text) {
        MiniJson p = new MiniJson(text);
        Object value = p.value();
        p.space();
        if (p.at != text.length()) {
            throw p.error("trailing characters");
        }
        return value;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("manifest JSON: " + what + " at offset " + at);
    }

    private void space() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
    }

    private boolean accept(char c) {
        space();
        if (at < text.length() && text.charAt(at) == c) {
            at++;
            return true;
        }
        return false;
    }

    private void expect(char c) {
        if (!accept(c)) {
            throw error("expected '" + c + "'");
        }
    }

    private Object value() {
        space();
        if (at >= text.length()) {
            throw error("unexpected end");
        }
        char c = text.charAt(at);
        if (c == '{') {
            at++;
            Map<String, Object> map = new LinkedHashMap<>();
            if (!accept('}')) {
                do {
                    space();
                    String key = string();
                    expect(':');
                    map.put(key, value());
                } while (accept(','));
                expect('}');
            }
            return map;
        }
        if (c == '[') {
            at++;
            List<Object> list = new ArrayList<>();
            if (!accept(']')) {
                do {
                    list.add(value());
                } while (accept(','));
                expect(']');
            }
            return list;
        }
        if (c == '"') {
            return string();
        }
        for (String word : new String[] {"true", "false", "null"}) {
            if (text.startsWith(word, at)) {
                at += word.length();
                return word.equals("null") ? null : Boolean.valueOf(word);
            }
        }
        int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
        if (start == at) {
            throw error("unexpected character '" + c + "'");
        }
        return Double.parseDouble(text.substring(start, at));
    }

    private String string() {
        if (at >= text.length() || text.charAt(at) != '"') {
            throw error("expected a string");
        }
        at++;
        StringBuilder b = new StringBuilder();
        while (true) {
            if (at >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(at++);
            if (c == '"') {
                return b.toString();
            }
            if (c != '\\') {
                b.append(c);
                continue;
            }
            char e = text.charAt(at++);
            switch (e) {
                case 'n' -> b.append('\n');
                case 't' -> b.append('\t');
                case 'r' -> b.append('\r');
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'u' -> {
                    b.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    at += 4;
                }
                default -> b.append(e);
            }
        }
    }
}
