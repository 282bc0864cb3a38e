package dev.ortho.hal;

/**
 * Buffer usage bits ({@code iree_hal_buffer_usage_t}, 32 bits): which operations a buffer may
 * take part in. Values and names are IREE's, so bit sets cross the VM, the remote protocol and
 * tool flags unchanged.
 *
 * <p>Text form ({@link #format}, {@link #parse}): names joined by {@code |}, unknown bits as
 * upper-case hex with an {@code h} suffix, no bits as the empty string. Names: IREE's own table
 * ({@code iree_hal_buffer_usage_format}): the combined {@code TRANSFER}, {@code DISPATCH}, {@code
 * DISPATCH_STORAGE}, {@code DISPATCH_IMAGE} and {@code MAPPING} first, then the single bits;
 * {@link #DEFAULT} formats as {@code TRANSFER|DISPATCH_STORAGE}.
 *
 * <p>Not instantiable; every method is pure and thread-safe.
 */
public final class BufferUsage {
    /** No usage. */
    public static final int NONE = 0;
    /** Source of transfer operations (copy, update source). */
    public static final int TRANSFER_SOURCE = 1 << 0;
    /** Target of transfer operations (fill, update, copy). */
    public static final int TRANSFER_TARGET = 1 << 1;
    /** Source and target of transfers. */
    public static final int TRANSFER = TRANSFER_SOURCE | TRANSFER_TARGET;
    /** Holds indirect dispatch parameters (workgroup counts). */
    public static final int DISPATCH_INDIRECT_PARAMETERS = 1 << 8;
    /** Uniformly read by dispatches. */
    public static final int DISPATCH_UNIFORM_READ = 1 << 9;
    /** Read by dispatches as a storage buffer. */
    public static final int DISPATCH_STORAGE_READ = 1 << 10;
    /** Written by dispatches as a storage buffer. */
    public static final int DISPATCH_STORAGE_WRITE = 1 << 11;
    /** Read and written as a storage buffer. */
    public static final int DISPATCH_STORAGE = DISPATCH_STORAGE_READ | DISPATCH_STORAGE_WRITE;
    /** Read by dispatches as an image. */
    public static final int DISPATCH_IMAGE_READ = 1 << 12;
    /** Written by dispatches as an image. */
    public static final int DISPATCH_IMAGE_WRITE = 1 << 13;
    /** Read and written as an image. */
    public static final int DISPATCH_IMAGE = DISPATCH_IMAGE_READ | DISPATCH_IMAGE_WRITE;
    /** Every dispatch use. */
    public static final int DISPATCH =
            DISPATCH_INDIRECT_PARAMETERS | DISPATCH_UNIFORM_READ | DISPATCH_STORAGE | DISPATCH_IMAGE;
    /** May be exported to other APIs or processes. */
    public static final int SHARING_EXPORT = 1 << 16;
    /** May be replicated across peer devices. */
    public static final int SHARING_REPLICATE = 1 << 17;
    /** May be used by several queues concurrently. */
    public static final int SHARING_CONCURRENT = 1 << 18;
    /** Immutable once initialized. */
    public static final int SHARING_IMMUTABLE = 1 << 19;
    /** May be mapped for scoped host access. */
    public static final int MAPPING_SCOPED = 1 << 24;
    /** May be mapped persistently. */
    public static final int MAPPING_PERSISTENT = 1 << 25;
    /** Mapping is wanted only if it is cheap. */
    public static final int MAPPING_OPTIONAL = 1 << 26;
    /** Mapped memory is accessed randomly by the host. */
    public static final int MAPPING_ACCESS_RANDOM = 1 << 27;
    /** Mapped memory is written sequentially by the host. */
    public static final int MAPPING_ACCESS_SEQUENTIAL_WRITE = 1 << 28;
    /** Scoped random-access mapping. */
    public static final int MAPPING = MAPPING_SCOPED | MAPPING_ACCESS_RANDOM;
    /** Transfers and storage dispatch: the usual internal buffer. */
    public static final int DEFAULT = TRANSFER | DISPATCH_STORAGE;

    private static final BitfieldText TEXT = new BitfieldText("buffer usage", 0xFFFFFFFFL,
            TRANSFER, "TRANSFER",
            DISPATCH, "DISPATCH",
            DISPATCH_STORAGE, "DISPATCH_STORAGE",
            DISPATCH_IMAGE, "DISPATCH_IMAGE",
            MAPPING, "MAPPING",
            TRANSFER_SOURCE, "TRANSFER_SOURCE",
            TRANSFER_TARGET, "TRANSFER_TARGET",
            DISPATCH_INDIRECT_PARAMETERS, "DISPATCH_INDIRECT_PARAMETERS",
            DISPATCH_UNIFORM_READ, "DISPATCH_UNIFORM_READ",
            DISPATCH_STORAGE_READ, "DISPATCH_STORAGE_READ",
            DISPATCH_STORAGE_WRITE, "DISPATCH_STORAGE_WRITE",
            DISPATCH_IMAGE_READ, "DISPATCH_IMAGE_READ",
            DISPATCH_IMAGE_WRITE, "DISPATCH_IMAGE_WRITE",
            SHARING_EXPORT, "SHARING_EXPORT",
            SHARING_REPLICATE, "SHARING_REPLICATE",
            SHARING_CONCURRENT, "SHARING_CONCURRENT",
            SHARING_IMMUTABLE, "SHARING_IMMUTABLE",
            MAPPING_SCOPED, "MAPPING_SCOPED",
            MAPPING_PERSISTENT, "MAPPING_PERSISTENT",
            MAPPING_OPTIONAL, "MAPPING_OPTIONAL",
            MAPPING_ACCESS_RANDOM, "MAPPING_ACCESS_RANDOM",
            MAPPING_ACCESS_SEQUENTIAL_WRITE, "MAPPING_ACCESS_SEQUENTIAL_WRITE");

    private BufferUsage() {
    }

    /** Returns true if every bit of {@code flags} is set in {@code bits}. */
    public static boolean has(int bits, int flags) {
        return (bits & flags) == flags;
    }

    /**
     * Formats {@code bits} in IREE's text form, e.g. {@code "TRANSFER|MAPPING_ACCESS_SEQUENTIAL_WRITE"};
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
