package dev.ortho.base;

/**
 * IREE's canonical status codes, with IREE's numeric values ({@code iree_status_code_t}).
 *
 * <p>The numeric value is part of Ortho's wire and file formats (remote HAL replies, semaphore
 * failure payloads), so it never changes. Each constant documents whether a caller should retry:
 * the retry semantics are the ones IREE (and absl/gRPC before it) attach to the code.
 *
 * <p>Immutable; thread-safe.
 */
public enum StatusCode {
    /** Success. Never carried by a {@link StatusException}. */
    OK(0),
    /** The operation was cancelled, usually by the caller. Retry only if the caller wants to. */
    CANCELLED(1),
    /** An error that maps to no other code. Whether a retry helps is unknown. */
    UNKNOWN(2),
    /**
     * The caller passed an argument that is invalid whatever the system state; the same call will
     * fail again. Do not retry without changing the arguments.
     */
    INVALID_ARGUMENT(3),
    /** A deadline passed before the operation completed. May be retried with a later deadline. */
    DEADLINE_EXCEEDED(4),
    /** A named resource (driver, device, module, function) does not exist. Do not retry as is. */
    NOT_FOUND(5),
    /** The resource the caller tried to create already exists. Do not retry as is. */
    ALREADY_EXISTS(6),
    /** The caller is not allowed to do this (e.g. write to a read-only buffer). Do not retry. */
    PERMISSION_DENIED(7),
    /**
     * A quota or a system resource (memory, handles, slots) is exhausted. Retry after releasing
     * resources or with backoff.
     */
    RESOURCE_EXHAUSTED(8),
    /**
     * The system is not in the state the operation needs (e.g. a command buffer not ended). Do not
     * retry until that state has been fixed explicitly.
     */
    FAILED_PRECONDITION(9),
    /** The operation was aborted by the system; restart the whole sequence, not just this call. */
    ABORTED(10),
    /**
     * The operation went past a valid range (an offset past a buffer's end, an index past a list's
     * size). Retry once the state (e.g. the size) changes.
     */
    OUT_OF_RANGE(11),
    /** The operation is not implemented or not supported here. Do not retry. */
    UNIMPLEMENTED(12),
    /** An invariant of the implementation was broken: a bug. Do not retry. */
    INTERNAL(13),
    /**
     * The service is transiently unavailable (a remote peer went away, a driver is stopping).
     * Retry with backoff.
     */
    UNAVAILABLE(14),
    /** Unrecoverable data loss or corruption. Do not retry; results may already be wrong. */
    DATA_LOSS(15),
    /** The caller lacks valid credentials (e.g. a wrong remote token). Retry with credentials. */
    UNAUTHENTICATED(16),
    /**
     * The operation was deferred and must be resumed later (a yielded invocation). Callers that do
     * not resume deferred work treat it as a failure.
     */
    DEFERRED(17),
    /**
     * The program or one of its parts does not fit the hosting environment (operating system, host
     * or device hardware, a missing instruction extension). Do not retry on this host.
     */
    INCOMPATIBLE(18);

    private static final StatusCode[] BY_VALUE = values();

    private final int value;

    StatusCode(int value) {
        this.value = value;
    }

    /** IREE's numeric value of this code (0–18). */
    public int value() {
        return value;
    }

    /** Whether this code is {@link #OK}. */
    public boolean isOk() {
        return this == OK;
    }

    /**
     * Returns the code with IREE's numeric {@code value}.
     *
     * <p>IREE treats every value within its 5-bit code mask as valid even if not enumerated; values
     * 19–31 therefore map to {@link #UNKNOWN}, as an unrecognised code must.
     *
     * @throws StatusException INVALID_ARGUMENT if {@code value} is negative or above 31
     */
    public static StatusCode fromValue(int value) {
        if (value >= 0 && value < BY_VALUE.length) {
            return BY_VALUE[value];
        }
        if (value > 0 && value <= 0x1F) {
            return UNKNOWN;
        }
        throw new StatusException(INVALID_ARGUMENT, "status code value " + value
                + " is outside IREE's code range [0, 31]");
    }
}
