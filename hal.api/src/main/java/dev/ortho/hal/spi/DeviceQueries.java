package dev.ortho.hal.spi;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;

/**
 * Helpers for drivers answering {@link dev.ortho.hal.Device#queryI64}. Not instantiable; pure and
 * thread-safe.
 */
public final class DeviceQueries {
    /** Category whose keys are identifier patterns: IREE's {@code hal.device.id}. */
    public static final String DEVICE_ID = "hal.device.id";
    /** Category whose keys are executable format names: IREE's {@code hal.executable.format}. */
    public static final String EXECUTABLE_FORMAT = "hal.executable.format";
    /** More wildcards than this never match (IREE's limit against pathological patterns). */
    public static final int MAX_PATTERN_WILDCARDS = 16;

    private DeviceQueries() {}

    /**
     * Whether {@code identifier} (a device's driver identifier, e.g. {@code local-sync}) matches
     * {@code pattern}, where {@code *} matches any run of characters and {@code ?} any one
     * character: IREE's {@code iree_string_view_match_pattern}, used for the
     * {@code hal.device.id} query ({@code local-*} matches both CPU devices). Patterns with more
     * than {@link #MAX_PATTERN_WILDCARDS} wildcards match nothing. Linear in the lengths' product
     * at worst; never backtracks exponentially.
     */
    public static boolean matchesPattern(String identifier, String pattern) {
        int wildcards = 0;
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '*' || c == '?') {
                wildcards++;
            }
        }
        if (wildcards > MAX_PATTERN_WILDCARDS) {
            return false;
        }
        // classic greedy glob with one backtrack point per star: O(n * m)
        int v = 0;
        int p = 0;
        int starP = -1;
        int starV = 0;
        while (v < identifier.length()) {
            if (p < pattern.length() && (pattern.charAt(p) == '?' || pattern.charAt(p) == identifier.charAt(v))) {
                v++;
                p++;
            } else if (p < pattern.length() && pattern.charAt(p) == '*') {
                starP = p++;
                starV = v;
            } else if (starP >= 0) {
                p = starP + 1;
                v = ++starV;
            } else {
                return false;
            }
        }
        while (p < pattern.length() && pattern.charAt(p) == '*') {
            p++;
        }
        return p == pattern.length();
    }

    /**
     * The NOT_FOUND a device answers for a {@code queryI64} key it does not know, in IREE's
     * wording ({@code has no configuration key value 'category :: key'}).
     */
    public static StatusException unknown(String deviceName, String category, String key) {
        return new StatusException(StatusCode.NOT_FOUND, "device '" + deviceName
                + "' has no configuration key value '" + category + " :: " + key + "'");
    }
}
