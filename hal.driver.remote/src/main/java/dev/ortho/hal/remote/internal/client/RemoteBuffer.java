package dev.ortho.hal.remote.internal.client;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.MappedMemory;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryType;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.remote.internal.protocol.FrameReader;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.spi.BufferAccess;
import dev.ortho.hal.spi.RootedBuffer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A buffer of a remote device: a handle to the server's root allocation plus this view's range.
 * Subspans exist only on the client (they retain the root and send the root's handle with
 * absolute offsets).
 *
 * <p><b>Contents move explicitly.</b> {@link #read} round-trips; {@link #write} and {@link #fill}
 * are one-way. A {@link #map mapping} is a local shadow: READ mappings fetch the range at map
 * time, {@link MappedMemory#invalidate} re-fetches, {@link MappedMemory#flush} sends, and so does
 * unmapping a writable mapping. The buffer therefore reports its memory as not {@code HOST_COHERENT}.
 * An imported buffer shares the caller's memory as its shadow: host writes land in it and are
 * sent, host reads first fetch the device's contents into it.
 *
 * <p>Properties of a queue-allocated buffer arrive asynchronously; the accessors wait for them
 * (bounded by the connection's liveness). Thread-safe.
 */
final class RemoteBuffer extends RootedBuffer<RemoteBuffer> implements RemoteConnection.Target {
    private final RemoteConnection connection;
    private final long handle;
    private final MemorySegment imported;
    private final Runnable releaseCallback;
    private volatile boolean resolved;
    private volatile StatusException failure;
    private volatile int memoryType;
    private volatile int allowedAccess;
    private volatile int allowedUsage;
    private volatile Thread waiter;
    /** Open writable persistent mappings of this root, written back before host reads (root only). */
    private final List<RemoteMapping> persistentWrites = new CopyOnWriteArrayList<>();

    /** A root whose properties are known (allocated or imported); {@code imported} may be null. */
    RemoteBuffer(RemoteConnection connection, long handle, long size, int type, int access, int usage,
            MemorySegment imported, Runnable releaseCallback) {
        this(connection, handle, size, imported, releaseCallback);
        resolve(type, access, usage);
    }

    /** A root from queue alloca: properties follow from the server. */
    RemoteBuffer(RemoteConnection connection, long handle, long size, MemorySegment imported,
            Runnable releaseCallback) {
        super(size);
        this.connection = connection;
        this.handle = handle;
        this.imported = imported;
        this.releaseCallback = releaseCallback;
    }

    private RemoteBuffer(RemoteBuffer root, long byteOffset, long byteLength) {
        super(root, byteOffset, byteLength);
        this.connection = root.connection;
        this.handle = root.handle;
        this.imported = root.imported;
        this.releaseCallback = null;
        this.resolved = true;
    }

    RemoteConnection connection() {
        return connection;
    }

    /** The root allocation's handle; offsets sent with it are absolute ({@link #byteOffset()} + relative). */
    long handle() {
        return handle;
    }

    void resolve(int type, int access, int usage) {
        // the shadow is synchronised explicitly: never coherent
        this.memoryType = type & ~MemoryType.HOST_COHERENT | (MemoryType.has(type, MemoryType.HOST_VISIBLE)
                ? MemoryType.HOST_CACHED : 0);
        this.allowedAccess = access;
        this.allowedUsage = usage;
        this.resolved = true;
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }

    @Override
    public void reached(long value, Frontier frontier) {
        // buffers receive no semaphore notifications
    }

    @Override
    public void failed(StatusException status) {
        failure = status;
        resolved = true;
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }

    @Override
    public void connectionLost(StatusException status) {
        if (!resolved) {
            failed(status);
        }
    }

    private RemoteBuffer properties() {
        RemoteBuffer r = root();
        if (!r.resolved) {
            connection.flush();
            r.waiter = Thread.currentThread();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!r.resolved) {
                connection.checkOpen();
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    throw new StatusException(StatusCode.DEADLINE_EXCEEDED, this + " properties did not arrive");
                }
                LockSupport.parkNanos(this, Math.min(remaining, TimeUnit.MILLISECONDS.toNanos(100)));
            }
        }
        StatusException failed = r.failure;
        if (failed != null) {
            throw new StatusException(failed.code(), this + " could not be allocated: " + failed.getMessage(), failed);
        }
        return r;
    }

    @Override
    public int memoryType() {
        return properties().memoryType;
    }

    @Override
    public int allowedAccess() {
        return properties().allowedAccess;
    }

    @Override
    public int allowedUsage() {
        return properties().allowedUsage;
    }

    @Override
    public Buffer subspan(long offset, long length) {
        long resolvedLength = Checks.range("subspan", offset, length, byteLength());
        root().retain();
        return new RemoteBuffer(root(), byteOffset() + offset, resolvedLength);
    }

    /**
     * Checks host access {@code access} to {@code [offset, offset + length)} in mapping
     * {@code mode} (read, write and fill are scoped); returns the length.
     */
    long checkHostAccess(String what, int mode, int access, long offset, long length) {
        BufferAccess.checkMappingMode(what, this, mode); // before waiting for the properties, as before
        RemoteBuffer r = properties();
        BufferAccess.checkMapping(what, this, r.memoryType, r.allowedUsage, r.allowedAccess, mode, access);
        return Checks.range(what, offset, length, byteLength());
    }

    /**
     * A shadow of the range (see the class comment); scoped and persistent mappings behave alike
     * (explicit flush and invalidate), differing only in the usage they require. The mapping
     * retains this buffer until it is closed.
     */
    @Override
    public MappedMemory map(int mode, int access, long offset, long length) {
        long resolvedLength = checkHostAccess("map", mode, access, offset, length);
        retain();
        try {
            root().writeBackPersistent();
            RemoteMapping mapping = new RemoteMapping(this, access, offset, resolvedLength);
            if (mode == MAPPING_MODE_PERSISTENT && MemoryAccess.has(access, MemoryAccess.WRITE)) {
                root().persistentWrites.add(mapping);
            }
            return mapping;
        } catch (RuntimeException e) {
            release();
            throw e;
        }
    }

    /**
     * Sends what the host wrote through open persistent mappings, so host reads of the buffer see
     * them (a persistent mapping stays in use alongside other host access; the device still needs
     * {@link MappedMemory#flush}, as the memory is not HOST_COHERENT).
     */
    private void writeBackPersistent() {
        for (RemoteMapping mapping : persistentWrites) {
            mapping.writeBack();
        }
    }

    /** Called by a mapping as it closes. */
    void unmapped(RemoteMapping mapping) {
        root().persistentWrites.remove(mapping);
    }

    @Override
    public void read(long offset, MemorySegment target) {
        checkHostAccess("read", MAPPING_MODE_SCOPED, MemoryAccess.READ, offset, target.byteSize());
        root().writeBackPersistent();
        fetch(byteOffset() + offset, target);
        if (imported != null && !imported.isReadOnly()) {
            MemorySegment.copy(target, 0, imported, byteOffset() + offset, target.byteSize());
        }
    }

    @Override
    public void write(long offset, MemorySegment source) {
        checkHostAccess("write", MAPPING_MODE_SCOPED, MemoryAccess.WRITE, offset, source.byteSize());
        if (imported != null) {
            MemorySegment.copy(source, 0, imported, byteOffset() + offset, source.byteSize());
        }
        push(byteOffset() + offset, source);
    }

    @Override
    public void fill(long offset, long length, int pattern, int patternLength) {
        long resolvedLength = Checks.range("fill", offset, length, byteLength());
        Checks.pattern("fill", offset, resolvedLength, patternLength);
        checkHostAccess("fill", MAPPING_MODE_SCOPED, MemoryAccess.WRITE, offset, resolvedLength);
        if (imported != null) {
            MemorySegment range = imported.asSlice(byteOffset() + offset, resolvedLength);
            for (long i = 0; i < resolvedLength; i += patternLength) {
                switch (patternLength) {
                    case 1 -> range.set(ValueLayout.JAVA_BYTE, i, (byte) pattern);
                    case 2 -> range.set(RemoteMapping.SHORT_LE, i, (short) pattern);
                    default -> range.set(RemoteMapping.INT_LE, i, pattern);
                }
            }
            push(byteOffset() + offset, range);
            return;
        }
        connection.send(connection.request(Protocol.BUFFER_FILL).putI64(handle).putI64(byteOffset() + offset)
                .putI64(resolvedLength).putI32(pattern).putI32(patternLength));
    }

    /** Reads {@code target.byteSize()} bytes at absolute {@code offset} from the server, in chunks. */
    void fetch(long offset, MemorySegment target) {
        long size = target.byteSize();
        // every chunk's request is in flight before the first reply is awaited: the server reads
        // and sends chunk n + 1 while this thread copies chunk n
        int chunks = (int) ((size + Protocol.TRANSFER_CHUNK_BYTES - 1) / Protocol.TRANSFER_CHUNK_BYTES);
        RemoteConnection.Call[] calls = new RemoteConnection.Call[chunks];
        int i = 0;
        try {
            for (; i < chunks; i++) {
                long done = (long) i * Protocol.TRANSFER_CHUNK_BYTES;
                long chunk = Math.min(size - done, Protocol.TRANSFER_CHUNK_BYTES);
                // a large reply's data may land straight in the target (no body buffer, no copy)
                calls[i] = connection.startRead(connection.request(Protocol.BUFFER_READ).putI64(handle)
                        .putI64(offset + done).putI64(chunk), target.asSlice(done, chunk));
            }
            for (i = 0; i < chunks; i++) {
                long done = (long) i * Protocol.TRANSFER_CHUNK_BYTES;
                int chunk = (int) Math.min(size - done, Protocol.TRANSFER_CHUNK_BYTES);
                RemoteConnection.Call call = calls[i];
                calls[i] = null; // awaited (even if it fails): not abandoned below
                FrameReader reply = connection.await(call, "read of " + this);
                if (call.landed()) {
                    continue;
                }
                var bytes = reply.bytes("data");
                if (bytes.remaining() != chunk) {
                    throw new StatusException(StatusCode.DATA_LOSS, "read of " + this + " returned "
                            + bytes.remaining() + " bytes instead of " + chunk);
                }
                MemorySegment.copy(MemorySegment.ofBuffer(bytes), 0, target, done, chunk);
            }
        } finally {
            for (RemoteConnection.Call call : calls) {
                if (call != null) {
                    connection.abandon(call); // a failed chunk: the replies still coming are dropped
                }
            }
        }
    }

    /** Writes {@code source} at absolute {@code offset} on the server, one-way, in chunks. */
    void push(long offset, MemorySegment source) {
        push(Protocol.BUFFER_WRITE, offset, source);
    }

    /** {@link #push(long, MemorySegment)} with {@code opcode} BUFFER_WRITE or MAPPING_WRITE_BACK. */
    void push(int opcode, long offset, MemorySegment source) {
        long size = source.byteSize();
        for (long done = 0; done < size; ) {
            int chunk = (int) Math.min(size - done, Protocol.TRANSFER_CHUNK_BYTES);
            java.nio.ByteBuffer view = chunk > Protocol.DIRECT_FRAME_BYTES
                    ? RemoteConnection.sourceOrNull(source.asSlice(done, chunk)) : null;
            if (view != null) {
                // written from the source itself on this thread: no frame to build, no copy
                connection.sendWithPayload(connection.request(opcode, 24).putI64(handle).putI64(offset + done)
                        .putI32(chunk), view);
                done += chunk;
                continue;
            }
            FrameWriter frame = chunk > Protocol.DIRECT_FRAME_BYTES
                    ? FrameWriter.directFrame(opcode, connection.newRequestId(), chunk + 24) // no JDK copy on write
                    : connection.request(opcode, chunk + 24);
            connection.send(frame.putI64(handle).putI64(offset + done).putBytes(source, done, chunk));
            done += chunk;
        }
    }

    /** The imported memory backing this buffer, or null. */
    MemorySegment imported() {
        return imported;
    }

    /** The root's last release frees the server's allocation and runs the release callback. */
    @Override
    protected void rootReleased() {
        connection.unregister(handle);
        connection.sendQuietly(connection.request(Protocol.RELEASE).putI64(handle));
        if (releaseCallback != null) {
            releaseCallback.run();
        }
    }

    @Override
    public String toString() {
        return "remote " + connection.peer() + " buffer " + handle + " [" + byteOffset() + ", "
                + (byteOffset() + byteLength()) + ") of " + allocationSize() + " bytes";
    }
}
