package dev.ortho.hal.frontier;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;

/**
 * The text form of {@link Frontier}s ({@link Frontier#toString()} / {@link Frontier#parse}):
 * {@code {q0.1:5, q0.2:7}}, {@code {s1.m3.c42:9, ...}} (tainted), {@code {}}. Works through the
 * frontier's public API only.
 *
 * <p>Not instantiable; stateless and thread-safe (the frontier formatted must not be written
 * concurrently).
 */
final class FrontierText {
    private FrontierText() {
    }

    /** Formats {@code frontier} as {@link Frontier#toString()} documents. */
    static String format(Frontier frontier) {
        StringBuilder text = new StringBuilder(2 + frontier.size() * 12).append('{');
        for (int k = 0; k < frontier.size(); k++) {
            if (k > 0) {
                text.append(", ");
            }
            Axis.appendTo(text, frontier.axisAt(k));
            text.append(':').append(Long.toUnsignedString(frontier.epochAt(k)));
        }
        if (frontier.isTainted()) {
            text.append(frontier.size() > 0 ? ", ..." : "...");
        }
        return text.append('}').toString();
    }

    /** Parses the text form into a new frontier of {@code capacity} entries, as {@link Frontier#parse}. */
    static Frontier parse(String text, int capacity) {
        Frontier frontier = new Frontier(capacity);
        if (text == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "frontier text is null");
        }
        String trimmed = text.strip();
        if (trimmed.length() < 2 || trimmed.charAt(0) != '{' || trimmed.charAt(trimmed.length() - 1) != '}') {
            throw malformed(text, "expected '{axis:epoch, ...}'");
        }
        String body = trimmed.substring(1, trimmed.length() - 1).strip();
        if (body.isEmpty()) {
            return frontier;
        }
        String[] tokens = body.split(",", -1);
        for (int k = 0; k < tokens.length; k++) {
            String token = tokens[k].strip();
            if (token.equals("...")) {
                if (k != tokens.length - 1) {
                    throw malformed(text, "'...' (tainted) must be the last token");
                }
                frontier.markTainted();
                break;
            }
            int colon = token.lastIndexOf(':');
            if (colon < 0) {
                throw malformed(text, "entry '" + token + "' is not axis:epoch");
            }
            long axis = Axis.parse(token.substring(0, colon).strip());
            long epoch = parseEpoch(text, token.substring(colon + 1).strip());
            if (frontier.epochOf(axis) != 0) { // parsed epochs are never 0
                throw malformed(text, "axis " + Axis.toString(axis) + " appears twice");
            }
            if (frontier.size() == capacity) {
                throw new StatusException(StatusCode.OUT_OF_RANGE,
                        "frontier '" + text + "' has more than " + capacity + " entries (the capacity)");
            }
            frontier.insertOrRaise(axis, epoch);
        }
        return frontier;
    }

    private static long parseEpoch(String text, String digits) {
        if (digits.isEmpty() || digits.length() > 20 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw malformed(text, "epoch '" + digits + "' is not an unsigned decimal");
        }
        long epoch;
        try {
            epoch = Long.parseUnsignedLong(digits);
        } catch (NumberFormatException e) {
            throw new StatusException(StatusCode.OUT_OF_RANGE,
                    "frontier '" + text + "': epoch " + digits + " exceeds 2^64-1");
        }
        if (epoch == 0) {
            throw malformed(text, "epoch 0 is meaningless (absent axes are at epoch 0)");
        }
        return epoch;
    }

    private static StatusException malformed(String text, String why) {
        return new StatusException(StatusCode.INVALID_ARGUMENT, "malformed frontier '" + text + "': " + why);
    }
}
