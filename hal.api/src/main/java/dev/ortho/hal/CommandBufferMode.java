package dev.ortho.hal;

/**
 * Command buffer mode bits ({@code iree_hal_command_buffer_mode_t}, 32 bits). Values and names
 * are IREE's, so bit sets cross the VM, the remote protocol and tool flags unchanged.
 *
 * <p>Text form ({@link #format}, {@link #parse}): names joined by {@code |}, unknown bits as
 * upper-case hex with an {@code h} suffix, no bits as the empty string. Names: IREE's own table
 * ({@code iree_hal_command_buffer_mode_format}): the single bits in declaration order; {@link
 * #DEFAULT} formats as the empty string. IREE has no parser for modes; Ortho parses with the same
 * table.
 *
 * <p>Not instantiable; every method is pure and thread-safe.
 */
public final class CommandBufferMode {
    /** Reusable, validated, retaining: the default. */
    public static final int DEFAULT = 0;
    /** Submitted once and never reused. */
    public static final int ONE_SHOT = 1 << 0;
    /** May execute inline with recording; requires {@link #ONE_SHOT}. */
    public static final int ALLOW_INLINE_EXECUTION = 1 << 4;
    /** Skips command buffer validation. */
    public static final int UNVALIDATED = 1 << 5;
    /** Does not retain the resources it references. */
    public static final int UNRETAINED = 1 << 6;
    /** Keeps the metadata profiling needs. */
    public static final int RETAIN_PROFILE_METADATA = 1 << 7;
    /** Keeps the per-dispatch metadata timestamping needs. */
    public static final int RETAIN_DISPATCH_METADATA = 1 << 8;

    private static final BitfieldText TEXT = new BitfieldText("command buffer mode", 0xFFFFFFFFL,
            ONE_SHOT, "ONE_SHOT",
            ALLOW_INLINE_EXECUTION, "ALLOW_INLINE_EXECUTION",
            UNVALIDATED, "UNVALIDATED",
            UNRETAINED, "UNRETAINED",
            RETAIN_PROFILE_METADATA, "RETAIN_PROFILE_METADATA",
            RETAIN_DISPATCH_METADATA, "RETAIN_DISPATCH_METADATA");

    private CommandBufferMode() {
    }

    /** Returns true if every bit of {@code flags} is set in {@code bits}. */
    public static boolean has(int bits, int flags) {
        return (bits & flags) == flags;
    }

    /**
     * Formats {@code bits} in IREE's text form, e.g. {@code "ONE_SHOT|RETAIN_DISPATCH_METADATA"};
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
