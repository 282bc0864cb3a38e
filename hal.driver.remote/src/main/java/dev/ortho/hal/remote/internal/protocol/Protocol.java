package dev.ortho.hal.remote.internal.protocol;

/**
 * The remote HAL wire protocol, version {@value #VERSION}: constants shared by client and server.
 *
 * <p><b>Frames.</b> Every message is one frame: a little-endian {@code u32} length counting the
 * bytes after it, then a {@code u32} opcode, a {@code u64} request id and the opcode's payload.
 * A receiver refuses (and closes the connection on) a length below {@link #HEADER_BYTES} or
 * above its configured maximum before reading the body, so a hostile length never allocates.
 *
 * <p><b>Requests.</b> The client numbers every request. Calls that return data (handshake,
 * buffer allocation and reads, queries, executable preparation) are answered by one
 * {@link #REPLY} carrying the request id, an IREE status code, a message when the code is not
 * OK and the result. Every other request is one-way: it is answered only when it fails
 * ({@link #ERROR}), because its effect is observable elsewhere (semaphores, buffer contents).
 *
 * <p><b>Handles, not pointers.</b> Resource ids ({@code u64}, non-zero) are chosen by the client
 * when it creates a resource, so a call that creates a resource and calls that use it travel in
 * one batch. Ids are scoped to one connection and never reused within it.
 *
 * <p><b>Encodings</b> (see {@link FrameWriter}): strings and byte blocks are {@code u32} length +
 * bytes (UTF-8 for strings); a status is {@code u32} code + string; a frontier is {@code u8}
 * count, {@code u8} tainted, then count ({@code u64} axis, {@code u64} epoch) pairs; a semaphore
 * list is {@code u32} count, then count ({@code u64} handle, {@code u64} value); a buffer
 * reference is {@code u8} kind (0 none, 1 direct: {@code u64} handle, {@code u64} absolute
 * offset, {@code u64} length; 2 slot: {@code u32} slot, {@code u64} offset, {@code u64} length).
 */
public final class Protocol {
    private Protocol() {}

    /** "ORTH" little-endian: the first field of {@link #HELLO}. */
    public static final int MAGIC = 0x4854524F;
    /**
     * This protocol's version; a server refuses any other with INCOMPATIBLE. Version 2 added the
     * queue count and semaphore scopes to the handshake, the scope to {@link #SEMAPHORE_CREATE},
     * memory and buffer barriers to {@link #CMD_BARRIER} and {@link #CMD_WAIT_EVENTS}, and
     * {@link #CMD_ADVISE}. Version 3 replaced the token in {@link #HELLO} by a challenge–response
     * ({@link #HELLO} answers a nonce, {@link #AUTH} proves the token with an HMAC of it, so the
     * token never travels) and added {@link #MAPPING_WRITE_BACK}. Version 4 added the server's
     * machine index to the {@link #AUTH} reply: the machine field its devices' queue axes carry,
     * so the frontiers it reports name axes no other server's do.
     */
    public static final int VERSION = 4;
    /** Opcode + request id after the length prefix. */
    public static final int HEADER_BYTES = 12;
    /** Length prefix size. */
    public static final int LENGTH_BYTES = 4;
    /**
     * Largest frame a server accepts before the peer authenticated ({@link #HELLO}, {@link #AUTH}
     * fit in a few dozen bytes): a peer that has not proved the token makes a server hold no more.
     */
    public static final int HANDSHAKE_MAX_FRAME_BYTES = 256;
    /** Bytes of the server's {@link #HELLO} nonce. */
    public static final int NONCE_BYTES = 32;
    /** The MAC of {@link #AUTH}: HMAC-SHA256 keyed with the token over the nonce. */
    public static final String AUTH_MAC = "HmacSHA256";
    /** Default largest frame body a peer accepts: 16 MiB of payload plus the header. */
    public static final int DEFAULT_MAX_FRAME_BYTES = (16 << 20) + 4096;
    /** Transfer frames above this many bytes are built off-heap ({@link FrameWriter#directFrame}). */
    public static final int DIRECT_FRAME_BYTES = 64 << 10;
    /** Largest block of buffer contents one transfer frame carries; larger transfers are split. */
    public static final int TRANSFER_CHUNK_BYTES = 4 << 20;

    // ---- client -> server ----
    /**
     * u32 magic, u32 version. Reply: bytes nonce ({@value #NONCE_BYTES} random bytes, fresh per
     * connection). Must be the first frame; a wrong magic or version is refused (INVALID_ARGUMENT,
     * INCOMPATIBLE) and the connection closed.
     */
    public static final int HELLO = 1;
    /**
     * u8 presented (0: the client has no token), bytes proof ({@link #AUTH_MAC} of the nonce keyed
     * with the token; empty when not presented). Must follow {@link #HELLO}. The server compares
     * the proof with its own in constant time; a mismatch or no token is UNAUTHENTICATED and the
     * connection closes. Reply: u64 device id, string path, string name, u64 capabilities, u32
     * queue count, u8 mask of the {@code SemaphoreScope} ordinals the device provides, u8 machine
     * index of its queue axes (0: not assigned), u32 n, n heaps.
     */
    public static final int AUTH = 4;
    /** Keep-alive; answered by {@link #PONG}. */
    public static final int PING = 2;
    /** u64 handle: drop the connection's reference to a resource. */
    public static final int RELEASE = 3;
    /** u64 handle, u64 initial value, u8 {@code SemaphoreScope} ordinal. */
    public static final int SEMAPHORE_CREATE = 10;
    /** u64 handle, u64 current value: a server-side stand-in for a semaphore of another device. */
    public static final int SEMAPHORE_IMPORT = 11;
    /** u64 handle, u64 value, frontier. */
    public static final int SEMAPHORE_SIGNAL = 12;
    /** u64 handle, status. */
    public static final int SEMAPHORE_FAIL = 13;
    /** u64 handle, u32 type, u32 access, u32 usage, u64 affinity, u64 alignment, u64 size. Reply: u32 type, access, usage. */
    public static final int BUFFER_ALLOCATE = 20;
    /** u64 handle, u64 offset, u64 length. Reply: bytes. */
    public static final int BUFFER_READ = 21;
    /** u64 handle, u64 offset, bytes. */
    public static final int BUFFER_WRITE = 22;
    /** u64 handle, u64 offset, u64 length, u32 pattern, u32 pattern length. */
    public static final int BUFFER_FILL = 23;
    /** u32 type, access, usage, u64 affinity, alignment, size. Reply: u32 compatibility. */
    public static final int ALLOCATOR_COMPATIBILITY = 24;
    /** Reply: u64 allocated, freed, peak. */
    public static final int ALLOCATOR_STATISTICS = 25;
    /** No payload. */
    public static final int ALLOCATOR_TRIM = 26;
    /**
     * u64 handle, u64 offset, bytes: a host mapping's contents written back (flush, unmap). As
     * {@link #BUFFER_WRITE}, except that a buffer whose memory was deallocated meanwhile drops
     * the bytes (FAILED_PRECONDITION is not an error), as a local mapping's writes would be lost.
     */
    public static final int MAPPING_WRITE_BACK = 27;
    /** string category, string key. Reply: u64 value. */
    public static final int QUERY_I64 = 30;
    /** u64 handle. */
    public static final int EVENT_CREATE = 31;
    /** u64 handle, string identifier. */
    public static final int CACHE_CREATE = 32;
    /** u64 cache, string format. Reply: u8 can. */
    public static final int CACHE_CAN_PREPARE = 33;
    /** u64 cache, u64 handle, string format, bytes data, u32 count + i32 constants. Reply: string format, u32 n, n function infos. */
    public static final int CACHE_PREPARE = 34;
    /** u64 handle, u32 mode, u32 categories, u64 affinity, u32 capacity, u32 n, n commands. */
    public static final int COMMAND_BUFFER = 40;
    /** Queue operations: u64 affinity, waits, signals, then the operation's fields. */
    public static final int QUEUE_ALLOCA = 50;
    public static final int QUEUE_DEALLOCA = 51;
    public static final int QUEUE_FILL = 52;
    public static final int QUEUE_UPDATE = 53;
    public static final int QUEUE_COPY = 54;
    public static final int QUEUE_DISPATCH = 55;
    public static final int QUEUE_EXECUTE = 56;
    public static final int QUEUE_BARRIER = 57;
    /** u64 affinity. */
    public static final int QUEUE_FLUSH = 58;

    // ---- server -> client ----
    /** u32 status code, [string message if not OK], result. */
    public static final int REPLY = 100;
    /** A one-way request failed: status. */
    public static final int ERROR = 101;
    /** Answer to {@link #PING}. */
    public static final int PONG = 102;
    /** u64 handle, u64 value, frontier: a server semaphore reached a value the client waits to see. */
    public static final int SEMAPHORE_REACHED = 103;
    /** u64 handle, status. */
    public static final int SEMAPHORE_FAILED = 104;
    /** u64 handle, u32 type, access, usage: a queue-allocated buffer's resolved properties. */
    public static final int BUFFER_INFO = 105;
    /** u64 handle, status: a queue allocation failed. */
    public static final int BUFFER_FAILED = 106;

    // ---- recorded commands (inside COMMAND_BUFFER) ----
    // CMD_BARRIER: u32 source stages, u32 target stages, u32 flags, barriers; CMD_WAIT_EVENTS: u32 n,
    // n u64 events, u32 source stages, u32 target stages, barriers. Barriers: u32 n, n (u32 source
    // scope, u32 target scope) memory barriers, u32 m, m (u32 source scope, u32 target scope,
    // buffer reference) buffer barriers. CMD_ADVISE: buffer reference, u64 flags, u64 arg0, u64 arg1.
    public static final int CMD_BEGIN_DEBUG_GROUP = 1;
    public static final int CMD_END_DEBUG_GROUP = 2;
    public static final int CMD_BARRIER = 3;
    public static final int CMD_SIGNAL_EVENT = 4;
    public static final int CMD_RESET_EVENT = 5;
    public static final int CMD_WAIT_EVENTS = 6;
    public static final int CMD_FILL = 7;
    public static final int CMD_UPDATE = 8;
    public static final int CMD_COPY = 9;
    public static final int CMD_DISPATCH = 10;
    public static final int CMD_ADVISE = 11;

    /** Buffer reference kinds. */
    public static final int REF_NONE = 0;
    public static final int REF_DIRECT = 1;
    public static final int REF_SLOT = 2;

    /** Largest count of list elements (semaphores, bindings, commands) a frame may declare. */
    public static final int MAX_LIST = 1 << 16;
}
