package dev.ortho.hal;

/**
 * Command category bits ({@code iree_hal_command_category_t}): which kinds of command a command
 * buffer may record. Values and names are IREE's, so bit sets cross the VM, the remote protocol
 * and tool flags unchanged.
 *
 * <p>Text form ({@link #format}, {@link #parse}): names joined by {@code |}, unknown bits as
 * upper-case hex with an {@code h} suffix, no bits as the empty string. Names: IREE's own table
 * ({@code iree_hal_command_category_format}): {@code ANY} first, then the single bits. IREE has
 * no parser for categories; Ortho parses with the same table.
 *
 * <p>Not instantiable; every method is pure and thread-safe.
 */
public final class CommandCategory {
    /** Transfer commands (fill, update, copy). */
    public static final int TRANSFER = 1 << 0;
    /** Dispatch commands. */
    public static final int DISPATCH = 1 << 1;
    /** Any command. */
    public static final int ANY = TRANSFER | DISPATCH;

    private static final BitfieldText TEXT = new BitfieldText("command category", 0xFFFFFFFFL,
            ANY, "ANY",
            TRANSFER, "TRANSFER",
            DISPATCH, "DISPATCH");

    private CommandCategory() {
    }

    /** Returns true if every bit of {@code flags} is set in {@code bits}. */
    public static boolean has(int bits, int flags) {
        return (bits & flags) == flags;
    }

    /**
     * Formats {@code bits} in IREE's text form, e.g. {@code "ANY|DISPATCH"};
     * never fails.
     */
    public static String format(int bits) {
        return TEXT.format(Integer.toUnsignedLong(bits));
    }

    /**
     * Parses IREE's text form: {@code |}-separated names (case-insensitive) or numbers
     * ({@code 12}, {@code 0xC}, {@code Ch}); empty text and empty parts are no bits.
     *
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT naming the unrecognized part, or a
     *     number wider than the field
     */
    public static int parse(String text) {
        return (int) TEXT.parse(text);
    }
}
