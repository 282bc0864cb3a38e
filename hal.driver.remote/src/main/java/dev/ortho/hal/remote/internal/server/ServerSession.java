package dev.ortho.hal.remote.internal.server;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.AllocatorStatistics;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.MappedMemory;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryHeap;
import dev.ortho.hal.MemoryType;
import dev.ortho.hal.Resource;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.frontier.SemaphoreScope;
import dev.ortho.hal.remote.ServerOptions;
import dev.ortho.hal.remote.internal.protocol.Challenge;
import dev.ortho.hal.remote.internal.protocol.FrameReader;
import dev.ortho.hal.remote.internal.sync.Gate;
import dev.ortho.hal.remote.internal.sync.SerialExecutor;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.remote.internal.transport.BodySink;
import dev.ortho.hal.remote.internal.transport.Transport;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client of a device server: authenticates it (HELLO's nonce, AUTH's HMAC of it), owns its
 * device and handle table, decodes its frames (on the I/O thread) and runs its queue operations
 * once their waits are reached ({@link SessionQueue}, through a {@link Gate} onto a
 * {@link SerialExecutor}); buffer
 * allocations and executable preparations run on that executor too, in arrival order, so a slow
 * one never stalls the I/O thread.
 *
 * <p>A failure that nothing else reports (a one-way request other than a queue operation) is
 * sent as {@code ERROR}, on which the client loses the device; failures already reported through
 * an object (a semaphore's failure, a queue operation's signals) are not.
 *
 * <p>A frame that cannot be decoded closes this session only (the transport closes with the
 * decoder's INVALID_ARGUMENT); a request that decodes but fails answers with the status (a
 * {@code REPLY}, an {@code ERROR}, or the failure of the operation's signal semaphores).
 */
public final class ServerSession implements Transport.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(ServerSession.class);
    private static final AtomicInteger CLIENTS = new AtomicInteger();

    private final Transport transport;
    private final ServerOptions options;
    private final Supplier<Device> devices;
    private final SerialExecutor serial;
    /** Everything sent, in order; signal reports made inside a burst of queue work wait for its end. */
    private final Outbox outbox;
    private final Consumer<ServerSession> onClose;
    private final HandleTable handles;
    private final SessionQueue queues;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final String name = "client " + CLIENTS.incrementAndGet();
    private volatile Device device;
    /** Why the session closed (set once, by {@link #close}), or null while open. */
    private volatile StatusException closeReason;
    /** The HELLO nonce this connection must prove the token for (transport thread only). */
    private byte[] nonce;

    /** A session with a budget of its own ({@link ServerOptions#serverMemoryBytes()}), e.g. a worker's only client. */
    public ServerSession(Transport transport, ServerOptions options, Supplier<Device> devices, Executor pool,
            Consumer<ServerSession> onClose) {
        this(transport, options, devices, pool, onClose, new MemoryBudget(options.serverMemoryBytes()));
    }

    /**
     * @param pool runs this client's queue operations, allocations and preparations (one at a
     *     time per client, in arrival order)
     * @param budget the server-wide memory budget shared by every session of one server
     */
    public ServerSession(Transport transport, ServerOptions options, Supplier<Device> devices, Executor pool,
            Consumer<ServerSession> onClose, MemoryBudget budget) {
        this.transport = transport;
        this.options = options;
        this.devices = devices;
        this.serial = new SerialExecutor(pool, this::flushReports);
        this.outbox = new Outbox(transport, serial::moreQueued);
        this.onClose = onClose;
        this.handles = new HandleTable(options.maxHandles(), options.maxMemoryBytes(), budget);
        this.queues = new SessionQueue(this, handles, options, serial, closed);
    }

    /**
     * Called by the server's I/O thread periodically: drops connections that do not authenticate
     * in time (timed from when the peer arrived: a worker waiting to be picked is not late), and
     * clients silent past the idle timeout (a vanished peer that never closed).
     */
    public void tick(long now) {
        long peerSince = transport.peerSinceNanos();
        if (device == null && peerSince != Transport.NO_PEER_YET
                && now - peerSince > options.handshakeTimeout().toNanos()) {
            transport.close(new StatusException(StatusCode.DEADLINE_EXCEEDED, name + " did not authenticate within "
                    + options.handshakeTimeout().toMillis() + " ms"));
        } else if (device != null && now - transport.lastReceiveNanos() > options.idleTimeout().toNanos()) {
            transport.close(new StatusException(StatusCode.UNAVAILABLE, name + " was silent for more than "
                    + options.idleTimeout().toMillis() + " ms"));
        }
    }

    @Override
    public void onFrame(ByteBuffer body) {
        FrameReader in = new FrameReader(body);
        if (device == null) {
            hello(in);
            return;
        }
        long id = in.requestId();
        try {
            handle(in);
        } catch (StatusException e) {
            if (in.isMalformed() || in.opcode() >= Protocol.REPLY) {
                throw e; // closes this connection only
            }
            if (isRoundTrip(in.opcode())) {
                reply(id, e);
            } else {
                // the client loses the device on this (a one-way failure must never go unseen)
                send(FrameWriter.frame(Protocol.ERROR, id).putStatus(new StatusException(e.code(), "opcode "
                        + in.opcode() + ": " + e.getMessage())));
                LOG.debug("{} request {} (opcode {}) failed: {}", name, id, in.opcode(), e.toString());
            }
        }
    }

    /**
     * A large {@link Protocol#BUFFER_WRITE} or {@link Protocol#MAPPING_WRITE_BACK} that would
     * succeed: its data is received straight into the buffer's mapped memory (no body buffer, no
     * copy), in order with the client's other frames as if {@link #handle} wrote it on arrival
     * (the buffer's bytes change as they arrive; a client that closes mid-frame leaves the range
     * partly written, and its session ends). Anything this cannot map now is received whole and
     * handled (and its failure reported) as usual.
     */
    @Override
    public BodySink bodySink(ByteBuffer prefix, int bodyLength) {
        int opcode = prefix.getInt(0);
        if (device == null || closed.get() || opcode != Protocol.BUFFER_WRITE && opcode != Protocol.MAPPING_WRITE_BACK) {
            return null;
        }
        int dataOffset = Protocol.HEADER_BYTES + 20; // handle, offset, data length
        long handle = prefix.getLong(Protocol.HEADER_BYTES);
        long offset = prefix.getLong(Protocol.HEADER_BYTES + 8);
        int length = prefix.getInt(Protocol.HEADER_BYTES + 16);
        if (length != bodyLength - dataOffset) {
            return null; // trailing bytes or a short frame: handle() reports it
        }
        Buffer buffer;
        MappedMemory mapping;
        try {
            buffer = handles.get(handle, Buffer.class, "written buffer");
            mapping = buffer.map(MemoryAccess.WRITE, offset, length); // the checks Buffer.write makes
        } catch (StatusException e) {
            return null; // handle() fails the same way and reports it
        }
        ByteBuffer target;
        boolean coherent;
        try {
            target = BodySink.sharedView(mapping.contents(), true);
            if (target == null) {
                mapping.close();
                return null; // memory a socket cannot fill from any thread: received whole and written as before
            }
            coherent = MemoryType.has(buffer.memoryType(), MemoryType.HOST_COHERENT);
        } catch (RuntimeException e) {
            mapping.close();
            return null;
        }
        return new BodySink(dataOffset, target) {
            @Override
            protected void complete() {
                if (!coherent) {
                    mapping.flush(0, length);
                }
            }

            @Override
            protected void release() {
                mapping.close();
            }
        };
    }

    /**
     * Answers {@link Protocol#BUFFER_READ} {@code id}. The range is mapped first (the checks
     * {@link Buffer#read} makes: a request that fails answers its status having allocated
     * nothing); a large read is then answered from the mapped memory itself, kept mapped until
     * the transport took the bytes ({@link Transport#sendLent}: no reply frame to allocate, no
     * copy), and anything else from a reply frame the mapping is copied into. The bytes are
     * those in the buffer when they are copied, as with any host read racing device work.
     */
    private void read(long id, Buffer buffer, long offset, int length) {
        MappedMemory mapping = buffer.map(MemoryAccess.READ, offset, length); // the checks Buffer.read makes
        boolean lent = false;
        try {
            if (!MemoryType.has(buffer.memoryType(), MemoryType.HOST_COHERENT)) {
                mapping.invalidate(0, length);
            }
            if (length > Protocol.DIRECT_FRAME_BYTES) {
                ByteBuffer data = BodySink.sharedView(mapping.contents(), false); // written by whichever thread writes
                if (data != null) {
                    ByteBuffer head = FrameWriter.frame(Protocol.REPLY, id, 8).putI32(0).putI32(length)
                            .finishWithPayload(length);
                    lent = true;
                    outbox.sendLent(head, data, mapping::close);
                    return;
                }
            }
            // memory a transport cannot read from another thread, or a small read: copied into the reply
            FrameWriter out = (length > Protocol.DIRECT_FRAME_BYTES ? FrameWriter.directFrame(Protocol.REPLY, id,
                    length + 8) : FrameWriter.frame(Protocol.REPLY, id, length + 8)).putI32(0);
            MemorySegment.copy(mapping.contents(), 0, out.reserveBytes(length), 0, length);
            send(out);
        } finally {
            if (!lent) {
                mapping.close();
            }
        }
    }

    private static boolean isRoundTrip(int opcode) {
        return switch (opcode) {
            case Protocol.BUFFER_ALLOCATE, Protocol.BUFFER_READ, Protocol.ALLOCATOR_COMPATIBILITY,
                    Protocol.ALLOCATOR_STATISTICS, Protocol.QUERY_I64, Protocol.CACHE_CAN_PREPARE,
                    Protocol.CACHE_PREPARE -> true;
            default -> false;
        };
    }

    private void hello(FrameReader in) {
        long id = in.requestId();
        if (nonce == null) {
            if (in.opcode() != Protocol.HELLO) {
                refuse(id, new StatusException(StatusCode.UNAUTHENTICATED, "the first frame must be HELLO, got opcode "
                        + in.opcode()));
                return;
            }
            int magic = in.i32("magic");
            if (magic != Protocol.MAGIC) {
                refuse(id, new StatusException(StatusCode.INVALID_ARGUMENT, "HELLO magic 0x"
                        + Integer.toHexString(magic) + " is not the remote HAL's 0x" + Integer.toHexString(Protocol.MAGIC)));
                return;
            }
            int version = in.i32("version");
            if (version != Protocol.VERSION) { // before reading further: older versions sent more fields
                refuse(id, new StatusException(StatusCode.INCOMPATIBLE, "protocol version " + version
                        + " is not supported; this server speaks version " + Protocol.VERSION));
                return;
            }
            in.end();
            nonce = Challenge.nonce();
            send(FrameWriter.frame(Protocol.REPLY, id).putI32(0).putBytes(nonce, 0, nonce.length));
            return;
        }
        if (in.opcode() != Protocol.AUTH) {
            refuse(id, new StatusException(StatusCode.UNAUTHENTICATED, "the frame after HELLO must be AUTH, got opcode "
                    + in.opcode()));
            return;
        }
        boolean presented = in.u8("presented") != 0;
        ByteBuffer proofBytes = in.bytes("proof");
        in.end();
        if (!presented) {
            refuse(id, new StatusException(StatusCode.UNAUTHENTICATED, name + " presented no token; this server "
                    + "requires one (token_file= on the device URI, or the ORTHO_REMOTE_TOKEN environment variable)"));
            return;
        }
        byte[] proof = new byte[proofBytes.remaining()];
        proofBytes.get(proof);
        if (!Challenge.verify(options.token(), nonce, proof)) { // constant time in the contents
            refuse(id, new StatusException(StatusCode.UNAUTHENTICATED, "the token presented by " + name
                    + " does not match the server's token"));
            return;
        }
        Device created;
        try {
            created = devices.get();
        } catch (RuntimeException e) {
            refuse(id, e instanceof StatusException s ? s
                    : new StatusException(StatusCode.UNAVAILABLE, "cannot create the served device: " + e));
            return;
        }
        device = created;
        transport.authenticated();
        FrameWriter out = FrameWriter.frame(Protocol.REPLY, id).putI32(0);
        out.putI64(created.info().id()).putString(created.info().path()).putString(created.info().name())
                .putI64(created.capabilities()).putI32(queueCount(created)).putU8(scopeMask(created))
                .putU8(options.machine());
        List<MemoryHeap> heaps = created.allocator().heaps();
        out.putI32(heaps.size());
        for (MemoryHeap heap : heaps) {
            out.putI32(heap.type()).putI32(heap.allowedUsage()).putI64(heap.maxAllocationSize())
                    .putI64(heap.minAlignment());
        }
        send(out);
        if (closed.get()) {
            created.close(); // the client vanished while the device was being created
        }
    }

    /** The served device's queue count ({@code hal.device :: concurrency}), at least 1. */
    private static int queueCount(Device device) {
        try {
            return (int) Math.clamp(device.queryI64("hal.device", "concurrency"), 1, 64);
        } catch (StatusException e) {
            return 1;
        }
    }

    /**
     * The semaphore scopes the served device provides, as a mask of ordinals: probed once per
     * client by creating (and releasing) one semaphore of each, so the client can refuse an
     * unavailable scope at the call (UNIMPLEMENTED) although semaphore creation is one-way.
     */
    private static int scopeMask(Device device) {
        int mask = 0;
        for (SemaphoreScope scope : SemaphoreScope.values()) {
            try {
                device.createSemaphore(0, scope).release();
                mask |= 1 << scope.ordinal();
            } catch (StatusException e) {
                // not provided by this device
            }
        }
        return mask;
    }

    private void refuse(long id, StatusException status) {
        send(FrameWriter.frame(Protocol.REPLY, id).putStatus(status));
        transport.closeAfterFlush(status);
    }

    private void handle(FrameReader in) {
        long id = in.requestId();
        switch (in.opcode()) {
            case Protocol.PING -> {
                in.end();
                send(FrameWriter.frame(Protocol.PONG, id));
            }
            case Protocol.RELEASE -> {
                long handle = in.i64("handle");
                in.end();
                try {
                    handles.release(handle);
                } catch (StatusException e) {
                    // a handle refused over the quota was never created; dropping no reference loses nothing
                    LOG.debug("{}: {}", name, e.getMessage());
                }
            }
            case Protocol.SEMAPHORE_CREATE -> {
                long handle = in.i64("handle");
                long initial = in.i64("initial value");
                int scope = in.u8("scope");
                in.end();
                createSemaphore(handle, () -> {
                    if (scope >= SemaphoreScope.values().length) {
                        throw new StatusException(StatusCode.INVALID_ARGUMENT, "semaphore scope " + scope
                                + " is not a scope ordinal (0.." + (SemaphoreScope.values().length - 1) + ")");
                    }
                    return device.createSemaphore(initial, SemaphoreScope.values()[scope]);
                });
            }
            case Protocol.SEMAPHORE_IMPORT -> {
                long handle = in.i64("handle");
                long initial = in.i64("current value");
                in.end();
                createSemaphore(handle, () -> new TimelineSemaphore(name + " import " + handle, initial));
            }
            case Protocol.SEMAPHORE_SIGNAL -> {
                long handle = in.i64("handle");
                long value = in.i64("value");
                Frontier frontier = in.frontier("frontier");
                in.end();
                Semaphore semaphore = handles.get(handle, Semaphore.class, "signalled semaphore");
                if (semaphore.query() < value) { // an import may already be there; forwarding is at-least-once
                    semaphore.signal(value, frontier);
                }
            }
            case Protocol.SEMAPHORE_FAIL -> {
                long handle = in.i64("handle");
                StatusException status = in.status("failure");
                in.end();
                handles.get(handle, Semaphore.class, "failed semaphore").fail(status);
            }
            case Protocol.BUFFER_ALLOCATE -> allocate(in);
            case Protocol.BUFFER_READ -> {
                Buffer buffer = handles.get(in.i64("handle"), Buffer.class, "read buffer");
                long offset = in.i64("offset");
                long length = in.i64("length");
                in.end();
                if (length < 0 || length > Protocol.TRANSFER_CHUNK_BYTES) {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT, "read length " + length + " is outside [0, "
                            + Protocol.TRANSFER_CHUNK_BYTES + "]");
                }
                read(id, buffer, offset, (int) length);
            }
            case Protocol.BUFFER_WRITE -> {
                Buffer buffer = handles.get(in.i64("handle"), Buffer.class, "written buffer");
                long offset = in.i64("offset");
                ByteBuffer data = in.bytes("data");
                in.end();
                buffer.write(offset, MemorySegment.ofBuffer(data));
            }
            case Protocol.MAPPING_WRITE_BACK -> {
                Buffer buffer = handles.get(in.i64("handle"), Buffer.class, "written-back buffer");
                long offset = in.i64("offset");
                ByteBuffer data = in.bytes("data");
                in.end();
                try {
                    buffer.write(offset, MemorySegment.ofBuffer(data));
                } catch (StatusException e) {
                    if (e.code() != StatusCode.FAILED_PRECONDITION) {
                        throw e;
                    }
                    // deallocated while mapped: a local mapping's writes would be lost too
                    LOG.debug("{} wrote back a mapping of deallocated {}: dropped", name, buffer);
                }
            }
            case Protocol.BUFFER_FILL -> {
                Buffer buffer = handles.get(in.i64("handle"), Buffer.class, "filled buffer");
                long offset = in.i64("offset");
                long length = in.i64("length");
                int pattern = in.i32("pattern");
                int patternLength = in.i32("pattern length");
                in.end();
                buffer.fill(offset, length, pattern, patternLength);
            }
            case Protocol.ALLOCATOR_COMPATIBILITY -> {
                BufferParams params = params(in);
                long size = in.i64("size");
                in.end();
                int compatibility = device.allocator().queryBufferCompatibility(params, size);
                send(FrameWriter.frame(Protocol.REPLY, id).putI32(0).putI32(compatibility));
            }
            case Protocol.ALLOCATOR_STATISTICS -> {
                in.end();
                AllocatorStatistics stats = device.allocator().statistics();
                send(FrameWriter.frame(Protocol.REPLY, id).putI32(0).putI64(stats.bytesAllocated())
                        .putI64(stats.bytesFreed()).putI64(stats.bytesPeak()));
            }
            case Protocol.ALLOCATOR_TRIM -> {
                in.end();
                device.allocator().trim();
            }
            case Protocol.QUERY_I64 -> {
                String category = in.string("category");
                String key = in.string("key");
                in.end();
                long value = category.equals("hal.executable.format") && !options.allowedFormats().contains(key) ? 0
                        : device.queryI64(category, key);
                send(FrameWriter.frame(Protocol.REPLY, id).putI32(0).putI64(value));
            }
            case Protocol.EVENT_CREATE -> {
                long handle = in.i64("handle");
                in.end();
                create(handle, device::createEvent);
            }
            case Protocol.CACHE_CREATE -> {
                long handle = in.i64("handle");
                String identifier = in.string("identifier");
                in.end();
                create(handle, () -> device.createExecutableCache(identifier));
            }
            case Protocol.CACHE_CAN_PREPARE -> {
                ExecutableCache cache = handles.get(in.i64("cache"), ExecutableCache.class, "executable cache");
                String format = in.string("format");
                in.end();
                boolean can = options.allowedFormats().contains(format) && cache.canPrepareFormat(format);
                send(FrameWriter.frame(Protocol.REPLY, id).putI32(0).putU8(can ? 1 : 0));
            }
            case Protocol.CACHE_PREPARE -> prepare(in);
            case Protocol.COMMAND_BUFFER -> CommandDecoder.record(in, handles, device);
            case Protocol.QUEUE_FLUSH -> {
                long affinity = in.i64("affinity");
                in.end();
                device.queueFlush(affinity);
            }
            default -> {
                if (in.opcode() >= Protocol.QUEUE_ALLOCA && in.opcode() <= Protocol.QUEUE_BARRIER) {
                    queues.queue(in, device);
                } else {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT, "unknown opcode " + in.opcode());
                }
            }
        }
    }

    /**
     * Creates a semaphore; a failure is reported as the semaphore's failure (the client mirrors
     * the semaphore already, and its waiters see the status), not as a lost device.
     */
    private void createSemaphore(long handle, Supplier<Semaphore> factory) {
        try {
            create(handle, factory::get);
        } catch (StatusException e) {
            if (e.code() == StatusCode.ALREADY_EXISTS) {
                throw e; // a client reusing a handle is broken: lose the device
            }
            send(FrameWriter.frame(Protocol.SEMAPHORE_FAILED, 0).putI64(handle).putStatus(e));
        }
    }

    private void create(long handle, Supplier<? extends Resource> factory) {
        try {
            handles.checkNew(handle);
            handles.put(handle, factory.get(), 0);
        } catch (StatusException e) {
            if (e.code() != StatusCode.ALREADY_EXISTS) {
                handles.poison(handle, e);
            }
            throw e;
        }
    }

    private static BufferParams params(FrameReader in) {
        int type = in.i32("memory type");
        int access = in.i32("access");
        int usage = in.i32("usage");
        long affinity = in.i64("queue affinity");
        long alignment = in.i64("alignment");
        return new BufferParams(type, access, usage, affinity, alignment);
    }

    private void allocate(FrameReader in) {
        long id = in.requestId();
        long handle = in.i64("handle");
        BufferParams params = params(in);
        long size = in.i64("size");
        in.end();
        offIoThread(id, () -> {
            handles.checkNew(handle);
            long charged = HandleTable.footprint(size, params.minAlignment());
            handles.reserveMemory(charged, "buffer " + handle);
            Buffer buffer;
            try {
                buffer = device.allocator().allocateBuffer(params, size);
            } catch (RuntimeException e) {
                handles.releaseMemory(charged);
                throw e;
            }
            handles.put(handle, buffer, charged);
            send(FrameWriter.frame(Protocol.REPLY, id).putI32(0).putI32(buffer.memoryType())
                    .putI32(buffer.allowedAccess()).putI32(buffer.allowedUsage()));
        });
    }

    /**
     * Runs round trip {@code id} on this client's serial executor, not the I/O thread (an
     * allocation or a preparation can take seconds; other clients' frames must not wait for it),
     * in arrival order with the client's other work; a failure is its reply.
     */
    private void offIoThread(long id, Runnable call) {
        serial.execute(() -> {
            if (closed.get()) {
                return; // the client is gone; nobody waits for the reply
            }
            try {
                call.run();
            } catch (StatusException e) {
                reply(id, e);
            } catch (RuntimeException e) {
                reply(id, new StatusException(StatusCode.INTERNAL, "request " + id + " failed: " + e, e));
            }
        });
    }

    private void prepare(FrameReader in) {
        long id = in.requestId();
        ExecutableCache cache = handles.get(in.i64("cache"), ExecutableCache.class, "executable cache");
        long handle = in.i64("handle");
        String format = in.string("format");
        ByteBuffer data = in.bytes("data");
        int count = in.count("constants", 4);
        int[] constants = new int[count];
        for (int i = 0; i < count; i++) {
            constants[i] = in.i32("constant");
        }
        in.end();
        offIoThread(id, () -> prepare(id, cache, handle, format, data, constants));
    }

    private void prepare(long id, ExecutableCache cache, long handle, String format, ByteBuffer data, int[] constants) {
        handles.checkNew(handle);
        if (!cache.canPrepareFormat(format)) {
            throw new StatusException(StatusCode.INCOMPATIBLE, "executable format '" + format
                    + "' cannot be prepared by device '" + device.info().name() + "'");
        }
        if (!options.allowedFormats().contains(format)) {
            throw new StatusException(StatusCode.PERMISSION_DENIED, "executable format '" + format
                    + "' is not trusted by this server (allowed: " + options.allowedFormats() + ")");
        }
        // an executable may keep its data (a frame's worth, 16 MiB) as long as the client keeps
        // its handle: counted against the memory quota like a buffer
        long bytes = data.remaining();
        handles.reserveMemory(bytes, "executable " + handle + " data");
        Executable executable;
        try {
            executable = cache.prepareExecutable(new ExecutableParams(format, MemorySegment.ofBuffer(data), constants));
        } catch (RuntimeException e) {
            handles.releaseMemory(bytes);
            throw e;
        }
        handles.put(handle, executable, bytes);
        FrameWriter out = FrameWriter.frame(Protocol.REPLY, id).putI32(0).putString(executable.format())
                .putI32(executable.functionCount());
        for (int i = 0; i < executable.functionCount(); i++) {
            ExecutableFunctionInfo info = executable.functionInfo(i);
            out.putString(info.name()).putI32(info.constantCount()).putI32(info.bindingCount())
                    .putI32(info.workgroupSizeX()).putI32(info.workgroupSizeY()).putI32(info.workgroupSizeZ())
                    .putI32(info.localMemory());
        }
        send(out);
    }

    void send(FrameWriter frame) {
        outbox.send(frame.finish());
    }

    /** Reports that semaphore {@code handle} reached {@code value} (batched within a burst). */
    void reached(long handle, long value, Frontier frontier) {
        outbox.reached(handle, value, frontier);
    }

    /** Reports that semaphore {@code handle} failed (batched within a burst, in order). */
    void failed(long handle, StatusException failure) {
        outbox.failed(handle, failure);
    }

    private void flushReports() {
        outbox.flush();
    }

    private void reply(long id, StatusException status) {
        send(FrameWriter.frame(Protocol.REPLY, id).putStatus(status));
    }

    /** Sends a buffer's resolved properties after a queue allocation. */
    void bufferInfo(long handle, Buffer buffer) {
        send(FrameWriter.frame(Protocol.BUFFER_INFO, 0).putI64(handle).putI32(buffer.memoryType())
                .putI32(buffer.allowedAccess()).putI32(buffer.allowedUsage()));
    }

    @Override
    public void onClosed(StatusException reason) {
        close(reason);
    }

    /** Disconnects: aborts held operations, releases every handle and closes the client's device. */
    public void close(StatusException reason) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        closeReason = reason;
        transport.close(reason);
        LOG.debug("{} disconnected: {}", name, reason.toString());
        StatusException cancelled = new StatusException(StatusCode.CANCELLED, name + " disconnected: "
                + reason.getMessage());
        queues.abortAll(cancelled);
        serial.execute(() -> {
            // after every aborted operation has released what it held
            try {
                handles.clear();
                Device d = device;
                if (d != null) {
                    d.close();
                }
            } finally {
                onClose.accept(this); // the server forgets the session even if closing its device failed
            }
        });
    }

    /**
     * Why the session closed, or null while it is open: INTERNAL means a frame made the server
     * fail inside (an exception no request should cause), not that the client broke the protocol.
     */
    public StatusException closeReason() {
        return closeReason;
    }

    /** This session's state for a test's hang report: closed, queued work and its transport's state. */
    public String diagnostics() {
        return name + " closed=" + closed.get() + " serial=" + serial.diagnostics() + " transport: "
                + transport.diagnostics();
    }

    @Override
    public String toString() {
        return name;
    }
}
