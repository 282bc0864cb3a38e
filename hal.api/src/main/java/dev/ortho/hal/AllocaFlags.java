package dev.ortho.hal;

/**
 * Queue allocation flag bits ({@code iree_hal_alloca_flags_t}, 64 bits), passed to
 * {@link Device#queueAlloca}. Values and names are IREE's.
 *
 * <p>Text form ({@link #format}, {@link #parse}): names joined by {@code |}, unknown bits as
 * upper-case hex with an {@code h} suffix, no bits as the empty string.
 *
 * <p>Not instantiable; every method is pure and thread-safe.
 */
public final class AllocaFlags {
    /** No flags. */
    public static final long NONE = 0L;
    /**
     * The buffer's lifetime cannot be determined by whoever allocated it: a queue dealloca of it
     * is ignored and its memory is freed when its last reference is released.
     */
    public static final long INDETERMINATE_LIFETIME = 1L << 0;
    /**
     * The queue may satisfy the allocation from pooled memory whose death frontier its own
     * frontier does not dominate, by ordering the allocation after that frontier internally;
     * without it a pool hands out only memory that is immediately usable.
     */
    public static final long ALLOW_POOL_WAIT_FRONTIER = 1L << 1;
    /** Every bit IREE defines. */
    public static final long KNOWN = INDETERMINATE_LIFETIME | ALLOW_POOL_WAIT_FRONTIER;

    private static final BitfieldText TEXT = new BitfieldText("alloca flags", -1L,
            INDETERMINATE_LIFETIME, "INDETERMINATE_LIFETIME",
            ALLOW_POOL_WAIT_FRONTIER, "ALLOW_POOL_WAIT_FRONTIER");

    private AllocaFlags() {
    }

    /** Returns true if every bit of {@code flags} is set in {@code bits}. */
    public static boolean has(long bits, long flags) {
        return (bits & flags) == flags;
    }

    /** Formats {@code bits}, e.g. {@code "INDETERMINATE_LIFETIME|ALLOW_POOL_WAIT_FRONTIER"}; never fails. */
    public static String format(long bits) {
        return TEXT.format(bits);
    }

    /**
     * Parses the text form: {@code |}-separated names (case-insensitive) or numbers.
     *
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT naming an unknown part
     */
    public static long parse(String text) {
        return TEXT.parse(text);
    }
}
