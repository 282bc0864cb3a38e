package dev.ortho.hal;

/**
 * Execution stage bits of a barrier ({@code iree_hal_execution_stage_t}; Vulkan's pipeline
 * stages). Values and names are IREE's, so bit sets cross the VM, the remote protocol and tool
 * flags unchanged.
 *
 * <p>Text form ({@link #format}, {@link #parse}): names joined by {@code |}, unknown bits as
 * upper-case hex with an {@code h} suffix, no bits as the empty string. Names: IREE defines no
 * text form for stages; Ortho names each bit after its IREE constant, in declaration order.
 *
 * <p>Not instantiable; every method is pure and thread-safe.
 */
public final class ExecutionStage {
    /** Top of the pipeline, when commands are issued. */
    public static final int COMMAND_ISSUE = 1 << 0;
    /** When dispatch parameters are consumed. */
    public static final int COMMAND_PROCESS = 1 << 1;
    /** Where dispatches execute. */
    public static final int DISPATCH = 1 << 2;
    /** Where transfers execute. */
    public static final int TRANSFER = 1 << 3;
    /** Bottom of the pipeline, when commands retire. */
    public static final int COMMAND_RETIRE = 1 << 4;
    /** Pseudo-stage for host reads and writes. */
    public static final int HOST = 1 << 5;

    private static final BitfieldText TEXT = new BitfieldText("execution stage", 0xFFFFFFFFL,
            COMMAND_ISSUE, "COMMAND_ISSUE",
            COMMAND_PROCESS, "COMMAND_PROCESS",
            DISPATCH, "DISPATCH",
            TRANSFER, "TRANSFER",
            COMMAND_RETIRE, "COMMAND_RETIRE",
            HOST, "HOST");

    private ExecutionStage() {
    }

    /** Returns true if every bit of {@code flags} is set in {@code bits}. */
    public static boolean has(int bits, int flags) {
        return (bits & flags) == flags;
    }

    /**
     * Formats {@code bits} in IREE's text form, e.g. {@code "COMMAND_ISSUE|HOST"};
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
