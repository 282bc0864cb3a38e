package dev.ortho.hal;

/**
 * Access scope bits of a memory barrier ({@code iree_hal_access_scope_t}; Vulkan's access flags).
 * Values and names are IREE's, so bit sets cross the VM, the remote protocol and tool flags
 * unchanged.
 *
 * <p>Text form ({@link #format}, {@link #parse}): names joined by {@code |}, unknown bits as
 * upper-case hex with an {@code h} suffix, no bits as the empty string. Names: IREE defines no
 * text form for scopes; Ortho names each bit after its IREE constant, in declaration order.
 *
 * <p>Not instantiable; every method is pure and thread-safe.
 */
public final class AccessScope {
    /** Indirect command data read by an indirect dispatch. */
    public static final int INDIRECT_COMMAND_READ = 1 << 0;
    /** Uniform constant reads by the device. */
    public static final int CONSTANT_READ = 1 << 1;
    /** Storage reads by dispatches. */
    public static final int DISPATCH_READ = 1 << 2;
    /** Storage writes by dispatches. */
    public static final int DISPATCH_WRITE = 1 << 3;
    /** Source of a transfer. */
    public static final int TRANSFER_READ = 1 << 4;
    /** Target of a transfer. */
    public static final int TRANSFER_WRITE = 1 << 5;
    /** Host reads through mapped memory. */
    public static final int HOST_READ = 1 << 6;
    /** Host writes through mapped memory. */
    public static final int HOST_WRITE = 1 << 7;
    /** External or unspecified reads. */
    public static final int MEMORY_READ = 1 << 8;
    /** External or unspecified writes. */
    public static final int MEMORY_WRITE = 1 << 9;

    private static final BitfieldText TEXT = new BitfieldText("access scope", 0xFFFFFFFFL,
            INDIRECT_COMMAND_READ, "INDIRECT_COMMAND_READ",
            CONSTANT_READ, "CONSTANT_READ",
            DISPATCH_READ, "DISPATCH_READ",
            DISPATCH_WRITE, "DISPATCH_WRITE",
            TRANSFER_READ, "TRANSFER_READ",
            TRANSFER_WRITE, "TRANSFER_WRITE",
            HOST_READ, "HOST_READ",
            HOST_WRITE, "HOST_WRITE",
            MEMORY_READ, "MEMORY_READ",
            MEMORY_WRITE, "MEMORY_WRITE");

    private AccessScope() {
    }

    /** Returns true if every bit of {@code flags} is set in {@code bits}. */
    public static boolean has(int bits, int flags) {
        return (bits & flags) == flags;
    }

    /**
     * Formats {@code bits} in IREE's text form, e.g. {@code "INDIRECT_COMMAND_READ|MEMORY_WRITE"};
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
