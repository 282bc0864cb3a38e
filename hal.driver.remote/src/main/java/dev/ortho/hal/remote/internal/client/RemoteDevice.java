package dev.ortho.hal.remote.internal.client;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Allocator;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceInfo;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Event;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.HostCall;
import dev.ortho.hal.MemoryHeap;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.DeviceCapability;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.frontier.SemaphoreScope;
import dev.ortho.hal.spi.DeviceQueries;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.remote.internal.protocol.RecordingCodec;
import dev.ortho.hal.Resource;
import dev.ortho.hal.spi.CommandRecorder;
import dev.ortho.hal.spi.RefCount;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

/**
 * A device on a remote server ({@code remote://host:port}), IREE's HAL marshalled over a
 * {@link RemoteConnection}.
 *
 * <p><b>Pipelining.</b> Resource handles are assigned here, so creating a semaphore, a command
 * buffer or a queue allocation and using it travel together without waiting. Queue operations
 * are one-way: their arguments are checked here (so argument errors are thrown at the call as on
 * a local device), their completion arrives as semaphore signals. Only calls that return data
 * round-trip: buffer allocation and reads, queries, executable preparation. Queue operations
 * submitted back to back are batched: written together once the caller waits on the server (or
 * within a millisecond or two), see {@link RemoteConnection#sendBatched}.
 *
 * <p><b>Semaphores of other devices</b> may appear in wait and signal lists; they are relayed
 * ({@link SemaphoreImports}). Host calls run here, on a client thread
 * ({@code ortho-remote-host-N}), once their waits are reached.
 *
 * <p><b>Failure.</b> If the server dies, the connection drops or the server stops answering
 * for the liveness deadline, semaphores still owed a signal fail with UNAVAILABLE and every call
 * throws UNAVAILABLE; create a new device to reconnect. Thread-safe.
 */
public final class RemoteDevice implements Device {
    private static final int HOST_CALL_ARGS = 4;
    /** The identifier {@code hal.device.id} patterns match besides the served device's own. */
    public static final String IDENTIFIER = "remote";
    /**
     * Served-device capabilities that hold over the wire: the device's own scheduling and
     * execution properties. Memory-model bits (unified, coherent, zero-copy, peer and
     * system-scope access) describe the server's address space, not the client's: host access
     * goes through explicitly synchronised shadows, so they are cleared; collectives are not
     * forwarded (channels are UNIMPLEMENTED).
     */
    static final long FORWARDED_CAPABILITIES = DeviceCapability.TIMELINE_SEMAPHORES | DeviceCapability.ISOLATED
            | DeviceCapability.ATOMIC_SCOPE_DEVICE | DeviceCapability.MULTI_QUEUE
            | DeviceCapability.STREAM_ORDERED_REUSE | DeviceCapability.FRONTIERS;
    /** Capabilities every remote device has: its calls are thread-safe and its queues never run on the caller. */
    static final long REMOTE_CAPABILITIES = DeviceCapability.CONCURRENT_SAFE | DeviceCapability.ASYNC_QUEUES;
    /** Checks one buffer reference; returns the direct length, or -1 for a slot. */
    interface RefCheck {
        long check(BufferRef ref, String what);
    }

    private final RemoteConnection connection;
    private final DeviceInfo info;
    private final long capabilities;
    private final int queueCount;
    private final int scopes;
    private final int machine;
    private final RemoteAllocator allocator;
    private final SemaphoreImports imports;
    private final RefCount references = new RefCount();
    private final Runnable onClose;
    private final HostCalls hostCalls = new HostCalls(this);
    private volatile boolean closed;

    /**
     * @param servedCapabilities the served device's {@link DeviceCapability} bits
     * @param queueCount the served device's queues
     * @param scopes mask of the {@link SemaphoreScope} ordinals the served device provides
     * @param machine the machine index the server announced for its queue axes (0: not assigned)
     */
    RemoteDevice(RemoteConnection connection, DeviceInfo info, long servedCapabilities, int queueCount, int scopes,
            int machine, List<MemoryHeap> heaps, Runnable onClose) {
        this.connection = connection;
        this.info = info;
        this.capabilities = servedCapabilities & FORWARDED_CAPABILITIES | REMOTE_CAPABILITIES;
        this.queueCount = queueCount;
        this.scopes = scopes;
        this.machine = machine;
        this.allocator = new RemoteAllocator(this, heaps);
        this.imports = new SemaphoreImports(connection);
        this.onClose = onClose;
    }

    RemoteConnection connection() {
        return connection;
    }

    /** The machine index the server announced for its queue axes (0: not assigned). */
    int machine() {
        return machine;
    }

    /** Foreign semaphores imported now. */
    int importCount() {
        return imports.size();
    }

    void requireOpen(String what) {
        if (closed) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, what + " on " + this + " after it was closed");
        }
        connection.checkOpen();
    }

    @Override
    public DeviceInfo info() {
        return info;
    }

    @Override
    public Allocator allocator() {
        return allocator;
    }

    /**
     * Answers {@code hal.device.id} for {@link #IDENTIFIER} here and otherwise asks the server, so
     * a pattern matches if it matches {@code remote} or the served device (a program compiled for
     * {@code local-*} runs on a remote {@code local-sync}); every other key is the served
     * device's answer (executable formats only if the server also trusts them).
     */
    @Override
    public long queryI64(String category, String key) {
        requireOpen("queryI64");
        Checks.notNull(category, "query category");
        Checks.notNull(key, "query key");
        if (category.equals(DeviceQueries.DEVICE_ID) && DeviceQueries.matchesPattern(IDENTIFIER, key)) {
            return 1;
        }
        return connection.call(connection.request(Protocol.QUERY_I64).putString(category).putString(key),
                "queryI64").i64("value");
    }

    @Override
    public long capabilities() {
        return capabilities;
    }

    /**
     * A semaphore the server creates with {@code scope} on the served device, mirrored here with
     * the same scope (so a queue-local mirror records no frontiers either).
     */
    @Override
    public Semaphore createSemaphore(long initialValue, SemaphoreScope scope) {
        requireOpen("createSemaphore");
        Checks.notNull(scope, "semaphore scope");
        if ((scopes & 1 << scope.ordinal()) == 0) {
            throw new StatusException(StatusCode.UNIMPLEMENTED, "semaphore scope " + scope
                    + " is not provided by the device served to " + this);
        }
        if (initialValue < 0 || initialValue > Semaphore.MAX_VALUE) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "semaphore initial value " + initialValue
                    + " is outside [0, " + Semaphore.MAX_VALUE + "]");
        }
        long handle = connection.newHandle();
        RemoteSemaphore semaphore = new RemoteSemaphore(connection, handle, initialValue, scope);
        connection.register(handle, semaphore);
        connection.send(connection.request(Protocol.SEMAPHORE_CREATE).putI64(handle).putI64(initialValue)
                .putU8(scope.ordinal()));
        return semaphore;
    }

    @Override
    public Event createEvent() {
        requireOpen("createEvent");
        long handle = connection.newHandle();
        connection.send(connection.request(Protocol.EVENT_CREATE).putI64(handle));
        return new RemoteEvent(this, handle);
    }

    @Override
    public CommandBuffer createCommandBuffer(int mode, int categories, long queueAffinity, int bindingCapacity) {
        requireOpen("createCommandBuffer");
        CommandRecorder.checkCreate("device.createCommandBuffer", mode, categories, bindingCapacity);
        checkAffinity("createCommandBuffer", queueAffinity);
        return new RemoteCommandBuffer(this, connection.newHandle(), mode, categories, queueAffinity, bindingCapacity);
    }

    @Override
    public ExecutableCache createExecutableCache(String identifier) {
        requireOpen("createExecutableCache");
        long handle = connection.newHandle();
        connection.send(connection.request(Protocol.CACHE_CREATE).putI64(handle)
                .putString(identifier == null ? "" : identifier));
        return new RemoteExecutableCache(this, handle);
    }

    /** {@code buffer} as a buffer of this device; INVALID_ARGUMENT naming {@code what} otherwise. */
    RemoteBuffer buffer(Buffer buffer, String what) {
        if (buffer instanceof RemoteBuffer remote && remote.connection() == connection) {
            return remote;
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " " + buffer + " is not a buffer of " + this
                + " (remote devices use their own buffers; copy through the host)");
    }

    RemoteExecutable executable(Executable executable, String what) {
        if (executable instanceof RemoteExecutable remote && remote.device() == this) {
            return remote;
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " executable " + executable
                + " was not prepared by " + this);
    }

    /**
     * Checks a non-null reference: a direct one must be a buffer of this device with its range
     * inside it (returns the resolved length); an indirect one returns -1 (its slot is the
     * recorder's to check).
     */
    long checkRef(BufferRef ref, String what) {
        Checks.notNull(ref, what);
        if (ref.isIndirect()) {
            return -1;
        }
        RemoteBuffer buffer = buffer(ref.buffer(), what);
        return Checks.range(what, ref.offset(), ref.length(), buffer.byteLength());
    }

    /** The handle {@link RecordingCodec} sends for a resource of a remote device (root handle for buffers). */
    static long handleOf(Resource resource) {
        return switch (resource) {
            case RemoteBuffer buffer -> buffer.handle();
            case RemoteEvent event -> event.handle();
            case RemoteExecutable executable -> executable.handle();
            default -> throw new StatusException(StatusCode.INTERNAL, resource + " is not a remote resource");
        };
    }

    /** Checks a dispatch's arguments against the function (shared by the queue and command buffers). */
    void checkDispatch(RemoteExecutable executable, int function, DispatchConfig config, MemorySegment constants,
            BufferRef[] bindings, RefCheck refs, String what) {
        ExecutableFunctionInfo fn = executable.functionInfo(function);
        Checks.notNull(config, what + " config");
        long constantBytes = constants == null ? 0 : constants.byteSize();
        if (constantBytes != fn.constantCount() * 4L) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " of '" + fn.name() + "' has "
                    + constantBytes + " constant bytes; the function takes " + fn.constantCount() + " constants ("
                    + fn.constantCount() * 4L + " bytes)");
        }
        int bindingCount = bindings == null ? 0 : bindings.length;
        if (bindingCount != fn.bindingCount()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " of '" + fn.name() + "' has "
                    + bindingCount + " bindings; the function takes " + fn.bindingCount());
        }
        if (config.workgroupCountRef() != null) {
            refs.check(config.workgroupCountRef(), what + " workgroup count");
        }
        for (int i = 0; i < bindingCount; i++) {
            refs.check(bindings[i], what + " binding " + i);
        }
    }

    /** INVALID_ARGUMENT unless {@code affinity} is any ({@code 0}, {@code -1}) or selects a served queue. */
    void checkAffinity(String what, long affinity) {
        long queues = queueCount >= 64 ? -1L : (1L << queueCount) - 1;
        if (affinity != 0 && affinity != QUEUE_AFFINITY_ANY && (affinity & queues) == 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " queue affinity 0x"
                    + Long.toHexString(affinity) + " selects no queue of " + this + " (it has " + queueCount
                    + " queue(s), mask 0x" + Long.toHexString(queues) + ")");
        }
    }

    /** Starts a queue frame: checks the lists, relays foreign semaphores, records owed signals. */
    private FrameWriter queueFrame(int opcode, String what, long affinity, SemaphoreList waits, SemaphoreList signals,
            int payloadHint, List<Object> uses) {
        requireOpen(what);
        if (waits == null || signals == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " wait or signal list is null (use "
                + "SemaphoreList.empty())");
        }
        checkAffinity(what, affinity);
        FrameWriter out = connection.request(opcode, payloadHint + 32 * (waits.size() + signals.size()) + 64);
        out.putI64(affinity).putI32(waits.size());
        for (int i = 0; i < waits.size(); i++) {
            Semaphore semaphore = waits.semaphore(i);
            long value = waits.value(i);
            out.putI64(semaphore instanceof RemoteSemaphore own && own.connection() == connection ? own.handle()
                    : imports.waitHandle(semaphore, value, uses)).putI64(value);
        }
        out.putI32(signals.size());
        for (int i = 0; i < signals.size(); i++) {
            Semaphore semaphore = signals.semaphore(i);
            long value = signals.value(i);
            long handle;
            if (semaphore instanceof RemoteSemaphore own && own.connection() == connection) {
                own.owe(value);
                handle = own.handle();
            } else {
                handle = imports.signalHandle(semaphore, value, uses);
            }
            out.putI64(handle).putI64(value);
        }
        return out;
    }

    /**
     * Builds a queue frame ({@code body} appends the operation's fields) and sends it; imported
     * semaphores it names stay imported at least until the frame is queued.
     */
    private void submit(int opcode, String what, long affinity, SemaphoreList waits, SemaphoreList signals,
            int payloadHint, java.util.function.Consumer<FrameWriter> body) {
        List<Object> uses = new java.util.ArrayList<>(2);
        try {
            FrameWriter out = queueFrame(opcode, what, affinity, waits, signals, payloadHint, uses);
            body.accept(out);
            if (uses.isEmpty()) {
                connection.sendBatched(out);
            } else {
                connection.send(out); // relays another device's semaphore, whose waiter cannot flush this connection
            }
        } finally {
            imports.settleAll(uses);
        }
    }

    @Override
    public Buffer queueAlloca(long queueAffinity, SemaphoreList waits, SemaphoreList signals, BufferParams params,
            long size, long flags) {
        Checks.notNull(params, "queueAlloca params");
        if (size < 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "queueAlloca size " + size + " is negative");
        }
        long handle = connection.newHandle();
        RemoteBuffer buffer = new RemoteBuffer(connection, handle, size, null, null);
        connection.register(handle, buffer);
        submit(Protocol.QUEUE_ALLOCA, "queueAlloca", queueAffinity, waits, signals, 64,
                out -> RemoteAllocator.putParams(out.putI64(handle), params).putI64(size).putI64(flags));
        return buffer;
    }

    @Override
    public void queueDealloca(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Buffer buffer,
            long flags) {
        RemoteBuffer remote = buffer(buffer, "queueDealloca buffer");
        submit(Protocol.QUEUE_DEALLOCA, "queueDealloca", queueAffinity, waits, signals, 16,
                out -> out.putI64(remote.handle()).putI64(flags));
    }

    @Override
    public void queueFill(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Buffer target, long offset,
            long length, int pattern, int patternLength, long flags) {
        RemoteBuffer remote = buffer(target, "queueFill target");
        long resolved = Checks.range("queueFill target", offset, length, remote.byteLength());
        Checks.pattern("queueFill", offset, resolved, patternLength);
        submit(Protocol.QUEUE_FILL, "queueFill", queueAffinity, waits, signals, 40, out -> out
                .putI64(remote.handle()).putI64(remote.byteOffset() + offset).putI64(resolved).putI32(pattern)
                .putI32(patternLength).putI64(flags));
    }

    @Override
    public void queueUpdate(long queueAffinity, SemaphoreList waits, SemaphoreList signals, MemorySegment source,
            Buffer target, long targetOffset, long flags) {
        Checks.notNull(source, "queueUpdate source");
        RemoteBuffer remote = buffer(target, "queueUpdate target");
        Checks.range("queueUpdate target", targetOffset, source.byteSize(), remote.byteLength());
        if (source.byteSize() > Protocol.TRANSFER_CHUNK_BYTES) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "queueUpdate of " + source.byteSize()
                    + " bytes exceeds the remote limit of " + Protocol.TRANSFER_CHUNK_BYTES + " bytes per update");
        }
        int size = (int) source.byteSize();
        submit(Protocol.QUEUE_UPDATE, "queueUpdate", queueAffinity, waits, signals, size + 32, out -> out
                .putBytes(source, 0, size).putI64(remote.handle()).putI64(remote.byteOffset() + targetOffset)
                .putI64(flags));
    }

    @Override
    public void queueCopy(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Buffer source,
            long sourceOffset, Buffer target, long targetOffset, long length, long flags) {
        RemoteBuffer from = buffer(source, "queueCopy source");
        RemoteBuffer to = buffer(target, "queueCopy target");
        long resolved = Checks.range("queueCopy source", sourceOffset, length, from.byteLength());
        Checks.range("queueCopy target", targetOffset, resolved, to.byteLength());
        Checks.disjoint(from, sourceOffset, to, targetOffset, resolved);
        submit(Protocol.QUEUE_COPY, "queueCopy", queueAffinity, waits, signals, 48, out -> out
                .putI64(from.handle()).putI64(from.byteOffset() + sourceOffset).putI64(to.handle())
                .putI64(to.byteOffset() + targetOffset).putI64(resolved).putI64(flags));
    }

    @Override
    public void queueDispatch(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Executable executable,
            int function, DispatchConfig config, MemorySegment constants, BufferRef[] bindings, long flags) {
        RemoteExecutable remote = executable(executable, "queueDispatch");
        checkDispatch(remote, function, config, constants, bindings, (ref, what) -> {
            if (ref != null && ref.isIndirect()) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " is an indirect reference (slot "
                        + ref.bufferSlot() + "); queue dispatches take direct buffers only");
            }
            return checkRef(ref, what);
        }, "queueDispatch");
        FrameWriter body = FrameWriter.unframed(128);
        RecordingCodec.writeDispatch(body, remote.handle(), function, config, constants,
                bindings == null ? List.of() : List.of(bindings), RemoteDevice::handleOf);
        submit(Protocol.QUEUE_DISPATCH, "queueDispatch", queueAffinity, waits, signals, body.size(),
                out -> out.putAll(body).putI64(flags));
    }

    @Override
    public void queueExecute(long queueAffinity, SemaphoreList waits, SemaphoreList signals,
            CommandBuffer commandBuffer, BindingTable bindings, long flags) {
        if (commandBuffer == null) {
            queueBarrier(queueAffinity, waits, signals, flags);
            return;
        }
        if (!(commandBuffer instanceof RemoteCommandBuffer remote)) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "queueExecute command buffer " + commandBuffer
                    + " was not created by " + this);
        }
        checkAffinity("queueExecute", queueAffinity);
        long allowed = anyToAll(remote.queueAffinity()) & anyToAll(queueAffinity);
        if (allowed == 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "queueExecute queue affinity 0x"
                    + Long.toHexString(queueAffinity) + " and " + remote + "'s affinity 0x"
                    + Long.toHexString(remote.queueAffinity()) + " select no common queue");
        }
        BindingTable table = bindings == null ? BindingTable.empty() : bindings;
        if (table.size() < remote.slotsUsed()) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "queueExecute binding table has " + table.size()
                    + " slots but " + remote + " uses slot " + (remote.slotsUsed() - 1));
        }
        FrameWriter tableBytes = FrameWriter.unframed(24 * table.size() + 8).putI32(table.size());
        for (int i = 0; i < table.size(); i++) {
            Buffer buffer = table.buffer(i);
            if (buffer == null) {
                tableBytes.putI64(0).putI64(0).putI64(0);
                continue;
            }
            RemoteBuffer slot = buffer(buffer, "binding table slot " + i);
            long length = Checks.range("binding table slot " + i, table.offset(i), table.length(i), slot.byteLength());
            tableBytes.putI64(slot.handle()).putI64(slot.byteOffset() + table.offset(i)).putI64(length);
        }
        requireOpen("queueExecute");
        FrameWriter create = remote.prepareSubmission(connection);
        if (create != null) {
            connection.send(create);
        }
        submit(Protocol.QUEUE_EXECUTE, "queueExecute", queueAffinity, waits, signals, tableBytes.size() + 16,
                out -> out.putI64(remote.handle()).putAll(tableBytes).putI64(flags));
    }

    /**
     * A barrier whose waits are already reached needs no device work: the client signals at once
     * (host signals carrying the merged frontier of the waits), saving the server a hop.
     */
    @Override
    public void queueBarrier(long queueAffinity, SemaphoreList waits, SemaphoreList signals, long flags) {
        requireOpen("queueBarrier");
        checkAffinity("queueBarrier", queueAffinity);
        if (waits != null && signals != null && waits.poll()) {
            Frontier merged = new Frontier(TimelineSemaphore.DEFAULT_FRONTIER_AXES);
            Frontier one = new Frontier(TimelineSemaphore.DEFAULT_FRONTIER_AXES);
            for (int i = 0; i < waits.size(); i++) {
                one.reset();
                if (waits.semaphore(i).frontierAt(waits.value(i), one)) {
                    merged.merge(one);
                }
            }
            for (int i = 0; i < signals.size(); i++) {
                signals.semaphore(i).signal(signals.value(i), merged);
            }
            return;
        }
        submit(Protocol.QUEUE_BARRIER, "queueBarrier", queueAffinity, waits, signals, 8, out -> out.putI64(flags));
    }

    /** Runs on this client once the waits are reached (the call is host code); signals travel as host signals. */
    @Override
    public void queueHostCall(long queueAffinity, SemaphoreList waits, SemaphoreList signals, HostCall call,
            long[] args, long flags) {
        requireOpen("queueHostCall");
        checkAffinity("queueHostCall", queueAffinity);
        if (waits == null || signals == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "queueHostCall wait or signal list is null");
        }
        Checks.notNull(call, "queueHostCall call");
        if (args != null && args.length > HOST_CALL_ARGS) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "queueHostCall has " + args.length
                    + " arguments, more than the " + HOST_CALL_ARGS + " a host call takes");
        }
        hostCalls.submit(waits, signals, call, args == null ? new long[HOST_CALL_ARGS]
                : Arrays.copyOf(args, HOST_CALL_ARGS), flags);
    }

    private static long anyToAll(long affinity) {
        return affinity == 0 ? -1L : affinity;
    }

    @Override
    public void queueFlush(long queueAffinity) {
        requireOpen("queueFlush");
        checkAffinity("queueFlush", queueAffinity);
        connection.send(connection.request(Protocol.QUEUE_FLUSH).putI64(queueAffinity));
    }

    @Override
    public void retain() {
        references.retain();
    }

    /** The last release disconnects: the server frees everything this device created. */
    @Override
    public void release() {
        if (!references.release(this)) {
            return;
        }
        closed = true;
        imports.clear();
        connection.closeByOwner(new StatusException(StatusCode.CANCELLED, "device closed by its owner"));
        hostCalls.shutdown();
        onClose.run();
    }

    @Override
    public String toString() {
        return "remote device " + connection.peer() + " (" + info.name() + ")";
    }
}
