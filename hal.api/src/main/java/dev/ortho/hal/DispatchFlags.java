package dev.ortho.hal;

/**
 * Dispatch flag bits ({@code iree_hal_dispatch_flags_t}, 64 bits): how a dispatch takes its
 * workgroup count and arguments. Values and names are IREE's, so bit sets cross the VM, the
 * remote protocol and tool flags unchanged.
 *
 * <p>Text form ({@link #format}, {@link #parse}): names joined by {@code |}, unknown bits as
 * upper-case hex with an {@code h} suffix, no bits as the empty string. Names: IREE defines no
 * text form for dispatch flags; Ortho names each bit after its IREE constant, in declaration
 * order.
 *
 * <p>Not instantiable; every method is pure and thread-safe.
 */
public final class DispatchFlags {
    /** No flags: direct workgroup count, HAL ABI constants and bindings. */
    public static final long NONE = 0L;
    /** Workgroup count is read from a buffer just before the dispatch. */
    public static final long DYNAMIC_INDIRECT_PARAMETERS = 1L << 0;
    /** Indirect parameters are fixed when the command buffer is issued. */
    public static final long STATIC_INDIRECT_PARAMETERS = 1L << 1;
    /** Constants are passed through as raw arguments, bypassing the HAL ABI. */
    public static final long CUSTOM_DIRECT_ARGUMENTS = 1L << 2;
    /** Arguments come from binding 0, bypassing the HAL ABI. */
    public static final long DYNAMIC_INDIRECT_ARGUMENTS = 1L << 3;
    /** Indirect arguments are fixed at issue and may be cloned. */
    public static final long STATIC_INDIRECT_ARGUMENTS = 1L << 4;
    /** Hint: the dispatch is cheap enough to run inline. */
    public static final long ALLOW_INLINE_EXECUTION = 1L << 5;
    /** The caller keeps resources alive; the queue need not retain them. */
    public static final long BORROW_RESOURCE_LIFETIMES = 1L << 6;

    private static final BitfieldText TEXT = new BitfieldText("dispatch flags", -1L,
            DYNAMIC_INDIRECT_PARAMETERS, "DYNAMIC_INDIRECT_PARAMETERS",
            STATIC_INDIRECT_PARAMETERS, "STATIC_INDIRECT_PARAMETERS",
            CUSTOM_DIRECT_ARGUMENTS, "CUSTOM_DIRECT_ARGUMENTS",
            DYNAMIC_INDIRECT_ARGUMENTS, "DYNAMIC_INDIRECT_ARGUMENTS",
            STATIC_INDIRECT_ARGUMENTS, "STATIC_INDIRECT_ARGUMENTS",
            ALLOW_INLINE_EXECUTION, "ALLOW_INLINE_EXECUTION",
            BORROW_RESOURCE_LIFETIMES, "BORROW_RESOURCE_LIFETIMES");

    private DispatchFlags() {
    }

    /** Returns true if every bit of {@code flags} is set in {@code bits}. */
    public static boolean has(long bits, long flags) {
        return (bits & flags) == flags;
    }

    /**
     * Formats {@code bits} in IREE's text form, e.g. {@code "DYNAMIC_INDIRECT_PARAMETERS|BORROW_RESOURCE_LIFETIMES"};
     * never fails.
     */
    public static String format(long bits) {
        return TEXT.format(bits);
    }

    /**
     * Parses IREE's text form: {@code |}-separated names (case-insensitive) or numbers
     * ({@code 12}, {@code 0xC}, {@code Ch}); empty text and empty parts are no bits.
     *
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT naming the unrecognized part, or a
     *     number wider than the field
     */
    public static long parse(String text) {
        return TEXT.parse(text);
    }
}
