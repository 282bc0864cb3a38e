package dev.ortho.hal;

/**
 * Memory type bits of an allocation ({@code iree_hal_memory_type_t}, 32 bits): where the memory
 * lives and how the host may see it. Values and names are IREE's, so bit sets cross the VM, the
 * remote protocol and tool flags unchanged.
 *
 * <p>Text form ({@link #format}, {@link #parse}): names joined by {@code |}, unknown bits as
 * upper-case hex with an {@code h} suffix, no bits as the empty string. Names: IREE's own table
 * ({@code iree_hal_memory_type_format}): the combined {@code HOST_LOCAL} and {@code DEVICE_LOCAL}
 * first, then the single bits. {@code OPTIMAL_FOR_HOST}/{@code OPTIMAL_FOR_DEVICE} have no name
 * of their own, so {@code OPTIMAL_FOR_DEVICE} formats as {@code DEVICE_LOCAL|OPTIMAL}.
 *
 * <p>Not instantiable; every method is pure and thread-safe.
 */
public final class MemoryType {
    /** No bits: the allocator chooses nothing. */
    public static final int NONE = 0;
    /** The allocator picks the best type for the buffer's usage. */
    public static final int OPTIMAL = 1 << 0;
    /** Mappable for host access. */
    public static final int HOST_VISIBLE = 1 << 1;
    /** Host writes need no flush and device writes no invalidate. */
    public static final int HOST_COHERENT = 1 << 2;
    /** Cached on the host: faster host reads, may need invalidation. */
    public static final int HOST_CACHED = 1 << 3;
    /** Ordinary host memory (visible, coherent and bit 6). */
    public static final int HOST_LOCAL = HOST_VISIBLE | HOST_COHERENT | (1 << 6);
    /** {@link #OPTIMAL} host-local memory. */
    public static final int OPTIMAL_FOR_HOST = OPTIMAL | HOST_LOCAL;
    /** Usable by the device. */
    public static final int DEVICE_VISIBLE = 1 << 4;
    /** Most efficient for device access (visible and bit 5). */
    public static final int DEVICE_LOCAL = DEVICE_VISIBLE | (1 << 5);
    /** {@link #OPTIMAL} device-local memory. */
    public static final int OPTIMAL_FOR_DEVICE = OPTIMAL | DEVICE_LOCAL;

    private static final BitfieldText TEXT = new BitfieldText("memory type", 0xFFFFFFFFL,
            HOST_LOCAL, "HOST_LOCAL",
            DEVICE_LOCAL, "DEVICE_LOCAL",
            OPTIMAL, "OPTIMAL",
            HOST_VISIBLE, "HOST_VISIBLE",
            HOST_COHERENT, "HOST_COHERENT",
            HOST_CACHED, "HOST_CACHED",
            DEVICE_VISIBLE, "DEVICE_VISIBLE");

    private MemoryType() {
    }

    /** Returns true if every bit of {@code flags} is set in {@code bits}. */
    public static boolean has(int bits, int flags) {
        return (bits & flags) == flags;
    }

    /**
     * Formats {@code bits} in IREE's text form, e.g. {@code "HOST_LOCAL|DEVICE_VISIBLE"};
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
