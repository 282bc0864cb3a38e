package dev.ortho.hal;

/**
 * What a device can do, as returned by {@link Device#capabilities()}: a 64-bit set holding
 * IREE's {@code iree_hal_device_capability_bits_t} (bits 0–11, IREE's values and names) and
 * Ortho's scheduling features (bits 48–55, Ortho's own: the behaviours the HAL conformance suite
 * and schedulers depend on). IREE reserves bits 12–63 for future topology flags; Ortho uses the
 * top of that range so the two do not meet in practice, and {@link #IREE_MASK} separates them.
 *
 * <p>Text form ({@link #format}, {@link #parse}): names joined by {@code |} as IREE's bitfields.
 *
 * <p>Not instantiable; every method is pure and thread-safe.
 */
public final class DeviceCapability {
    /** No capabilities. */
    public static final long NONE = 0;
    /** Native timeline semaphores (not binary emulation). IREE bit 0. */
    public static final long TIMELINE_SEMAPHORES = 1L << 0;
    /** Device memory is in one address space without per-range access programming. IREE bit 1. */
    public static final long UNIFIED_MEMORY = 1L << 1;
    /** Host access to device-visible memory is coherent without cache maintenance. IREE bit 2. */
    public static final long HOST_COHERENT = 1L << 2;
    /** Same-driver peer memory access is coherent. IREE bit 3. */
    public static final long PEER_COHERENT = 1L << 3;
    /** A P2P DMA engine copies between this device and peers. IREE bit 4. */
    public static final long P2P_COPY = 1L << 4;
    /** Host memory may be used by the device without a copy. IREE bit 5. */
    public static final long HOST_ZERO_COPY_OK = 1L << 5;
    /** The device may be used from several threads at once. IREE bit 6. */
    public static final long CONCURRENT_SAFE = 1L << 6;
    /** Device-scope atomics. IREE bit 7. */
    public static final long ATOMIC_SCOPE_DEVICE = 1L << 7;
    /** System-scope atomics. IREE bit 8. */
    public static final long ATOMIC_SCOPE_SYSTEM = 1L << 8;
    /** The device is an isolated partition (MIG, SR-IOV). IREE bit 9. */
    public static final long ISOLATED = 1L << 9;
    /** Peer memory is load/store addressable. IREE bit 10. */
    public static final long PEER_ADDRESSABLE = 1L << 10;
    /** Shared virtual addressing across devices. IREE bit 11. */
    public static final long SHARED_VIRTUAL_ADDRESS = 1L << 11;
    /** The bits IREE defines. */
    public static final long IREE_MASK = (1L << 12) - 1;

    /**
     * Ortho: queue operations return before their waits are reached and complete later on the
     * device's own threads (a synchronous device such as {@code local-sync} runs them inline).
     */
    public static final long ASYNC_QUEUES = 1L << 48;
    /** Ortho: more than one queue; affinity bits 0, 1 and 2 select distinct queues. */
    public static final long MULTI_QUEUE = 1L << 49;
    /** Ortho: queue alloca reuses memory freed by an earlier dealloca in stream order. */
    public static final long STREAM_ORDERED_REUSE = 1L << 50;
    /** Ortho: queue signals carry frontiers (seed 002), so waiters import their causal past. */
    public static final long FRONTIERS = 1L << 51;
    /** Ortho: collective operations on channels are implemented. */
    public static final long COLLECTIVES = 1L << 52;
    /**
     * Ortho: each queue runs its operations in submission order (one starts once the operation
     * submitted before it on its queue finished), and a wait on a value an earlier operation of the
     * same queue signals is skipped at submission. Such a queue, like a CUDA stream, must not wait
     * on a value that only a later submission to it signals. Without it (IREE's order) an
     * operation runs as soon as its waits are reached.
     */
    public static final long FIFO_QUEUES = 1L << 53;
    /** The bits Ortho defines. */
    public static final long ORTHO_MASK = 0xFFL << 48;

    private static final BitfieldText TEXT = new BitfieldText("device capability", -1L,
            TIMELINE_SEMAPHORES, "TIMELINE_SEMAPHORES",
            UNIFIED_MEMORY, "UNIFIED_MEMORY",
            HOST_COHERENT, "HOST_COHERENT",
            PEER_COHERENT, "PEER_COHERENT",
            P2P_COPY, "P2P_COPY",
            HOST_ZERO_COPY_OK, "HOST_ZERO_COPY_OK",
            CONCURRENT_SAFE, "CONCURRENT_SAFE",
            ATOMIC_SCOPE_DEVICE, "ATOMIC_SCOPE_DEVICE",
            ATOMIC_SCOPE_SYSTEM, "ATOMIC_SCOPE_SYSTEM",
            ISOLATED, "ISOLATED",
            PEER_ADDRESSABLE, "PEER_ADDRESSABLE",
            SHARED_VIRTUAL_ADDRESS, "SHARED_VIRTUAL_ADDRESS",
            ASYNC_QUEUES, "ASYNC_QUEUES",
            MULTI_QUEUE, "MULTI_QUEUE",
            STREAM_ORDERED_REUSE, "STREAM_ORDERED_REUSE",
            FRONTIERS, "FRONTIERS",
            COLLECTIVES, "COLLECTIVES",
            FIFO_QUEUES, "FIFO_QUEUES");

    private DeviceCapability() {
    }

    /** Returns true if every bit of {@code flags} is set in {@code bits}. */
    public static boolean has(long bits, long flags) {
        return (bits & flags) == flags;
    }

    /** Formats {@code bits}, e.g. {@code "TIMELINE_SEMAPHORES|HOST_COHERENT"}; never fails. */
    public static String format(long bits) {
        return TEXT.format(bits);
    }

    /**
     * Parses the text form: {@code |}-separated names (case-insensitive) or numbers.
     *
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT naming the unrecognized part
     */
    public static long parse(String text) {
        return TEXT.parse(text);
    }
}
