package dev.ortho.hal;

/**
 * Memory access bits of a buffer or mapping ({@code iree_hal_memory_access_t}, 16 bits). Values
 * and names are IREE's, so bit sets cross the VM, the remote protocol and tool flags unchanged.
 *
 * <p>Text form ({@link #format}, {@link #parse}): names joined by {@code |}, unknown bits as
 * upper-case hex with an {@code h} suffix, no bits as the empty string. Names: IREE's own table
 * ({@code iree_hal_memory_access_format}): {@code ALL} and {@code DISCARD_WRITE} first, then the
 * single bits. As in IREE, {@link #UNALIGNED} has no name in the table and formats as {@code 10h}
 * (parse accepts the number).
 *
 * <p>Not instantiable; every method is pure and thread-safe.
 */
public final class MemoryAccess {
    /** No access. */
    public static final int NONE = 0;
    /** Memory will be read. */
    public static final int READ = 1 << 0;
    /** Memory will be written. */
    public static final int WRITE = 1 << 1;
    /** Contents are discarded before mapping (undefined until written). */
    public static final int DISCARD = 1 << 2;
    /** Discarded and completely overwritten. */
    public static final int DISCARD_WRITE = WRITE | DISCARD;
    /** The storage may alias other concurrent accesses. */
    public static final int MAY_ALIAS = 1 << 3;
    /** The storage may not be aligned. */
    public static final int UNALIGNED = 1 << 4;
    /** Any access, not validated at the API boundary. */
    public static final int ANY = 1 << 5;
    /** Read, write and discard. */
    public static final int ALL = READ | WRITE | DISCARD;

    private static final BitfieldText TEXT = new BitfieldText("memory access", 0xFFFFL,
            ALL, "ALL",
            DISCARD_WRITE, "DISCARD_WRITE",
            READ, "READ",
            WRITE, "WRITE",
            DISCARD, "DISCARD",
            MAY_ALIAS, "MAY_ALIAS",
            ANY, "ANY");

    private MemoryAccess() {
    }

    /** Returns true if every bit of {@code flags} is set in {@code bits}. */
    public static boolean has(int bits, int flags) {
        return (bits & flags) == flags;
    }

    /**
     * Formats {@code bits} in IREE's text form, e.g. {@code "ALL|ANY"};
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
