package dev.ortho.launcher.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * IREE-style tool flags: {@code --name=value} (repeatable flags collect every value),
 * {@code --name} for booleans ({@code --name=true|false} also accepted), {@code --} ends the
 * flags; everything else is a positional argument. A lone {@code -} is positional (stdin).
 *
 * <p>Plain value object; not thread-safe.
 */
final class ToolFlags {
    private final Map<String, List<String>> values = new LinkedHashMap<>();
    private final List<String> positional = new ArrayList<>();

    private ToolFlags() {
    }

    /**
     * Parses {@code args} for {@code tool}, accepting only {@code valueFlags} (which need a value)
     * and {@code boolFlags}.
     *
     * @throws StatusException INVALID_ARGUMENT naming an unknown flag or a missing value
     */
    static ToolFlags parse(String tool, List<String> args, Set<String> valueFlags, Set<String> boolFlags) {
        ToolFlags flags = new ToolFlags();
        boolean flagsEnded = false;
        for (String arg : args) {
            if (flagsEnded || !arg.startsWith("--")) {
                if (!flagsEnded && arg.startsWith("-") && !arg.equals("-")) {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT,
                            tool + ": flags take the form --name=value, got '" + arg + "'");
                }
                flags.positional.add(arg);
                continue;
            }
            if (arg.equals("--")) {
                flagsEnded = true;
                continue;
            }
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg.substring(2) : arg.substring(2, eq);
            String value = eq < 0 ? null : arg.substring(eq + 1);
            if (valueFlags.contains(name)) {
                if (value == null) {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT,
                            tool + ": flag --" + name + " needs a value (--" + name + "=...)");
                }
            } else if (boolFlags.contains(name)) {
                if (value == null) {
                    value = "true";
                } else if (!value.equals("true") && !value.equals("false")) {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT,
                            tool + ": flag --" + name + " is boolean, got '" + value + "'");
                }
            } else {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, tool + ": unknown flag '--" + name + "'");
            }
            flags.values.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
        }
        return flags;
    }

    /** The last value given for {@code name}, or {@code defaultValue}. */
    String get(String name, String defaultValue) {
        List<String> list = values.get(name);
        return list == null ? defaultValue : list.get(list.size() - 1);
    }

    /** Every value given for {@code name}, in order. */
    List<String> all(String name) {
        return values.getOrDefault(name, List.of());
    }

    /** Whether boolean flag {@code name} is set (and not {@code =false}). */
    boolean isSet(String name) {
        return get(name, "false").equals("true");
    }

    /** Positional arguments in order. */
    List<String> positional() {
        return positional;
    }
}
