package dev.ortho.hal.remote.internal.client;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.MappedMemory;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A host mapping of a remote buffer: a local shadow of the range (off-heap, freed at unmap; for an
 * imported buffer, the imported memory itself). Mappings are fetched when made unless they are
 * write-only with DISCARD;
 * {@link #invalidate} fetches again, {@link #flush} sends host writes to the server early, and
 * unmapping a writable mapping sends the whole range (hal.api's helpers such as
 * {@code Buffer.mapCopy} and {@code BufferViewText.parse} unmap without flushing, as they may on a
 * coherent device). Retains its buffer until closed. Not thread-safe.
 */
final class RemoteMapping implements MappedMemory {
    static final ValueLayout.OfShort SHORT_LE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final RemoteBuffer buffer;
    private final int access;
    private final long offset;
    private final long length;
    private final Arena arena;
    private final MemorySegment shadow;
    private boolean closed;

    RemoteMapping(RemoteBuffer buffer, int access, long offset, long length) {
        this.buffer = buffer;
        this.access = access;
        this.offset = offset;
        this.length = length;
        MemorySegment imported = buffer.imported();
        if (imported != null) {
            this.arena = null;
            this.shadow = imported.asSlice(buffer.byteOffset() + offset, length);
        } else {
            this.arena = Arena.ofShared();
            this.shadow = arena.allocate(Math.max(1, length), 64).asSlice(0, length);
        }
        // a writable mapping is sent back whole at unmap, so unless the caller discards the old
        // contents the shadow must start from them (or the bytes it does not write would be lost)
        // (a read-only import is its own up-to-date shadow: the client never grants writing it)
        boolean readOnlyImport = imported != null && imported.isReadOnly();
        if (!readOnlyImport
                && (MemoryAccess.has(access, MemoryAccess.READ) || !MemoryAccess.has(access, MemoryAccess.DISCARD))) {
            try {
                buffer.fetch(buffer.byteOffset() + offset, shadow);
            } catch (RuntimeException e) {
                if (arena != null) {
                    arena.close();
                }
                throw e;
            }
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "mapping of " + buffer + " was unmapped");
        }
    }

    @Override
    public MemorySegment contents() {
        checkOpen();
        return MemoryAccess.has(access, MemoryAccess.WRITE) ? shadow : shadow.asReadOnly();
    }

    @Override
    public long byteOffset() {
        return offset;
    }

    @Override
    public long byteLength() {
        return length;
    }

    @Override
    public int access() {
        return access;
    }

    @Override
    public void flush(long rangeOffset, long rangeLength) {
        checkOpen();
        long resolved = Checks.range("flush", rangeOffset, rangeLength, length);
        if (MemoryAccess.has(access, MemoryAccess.WRITE) && resolved > 0) {
            buffer.push(Protocol.MAPPING_WRITE_BACK, buffer.byteOffset() + offset + rangeOffset,
                    shadow.asSlice(rangeOffset, resolved));
        }
    }

    /** Sends the whole shadow (a writable persistent mapping, before another host read of its buffer). */
    void writeBack() {
        if (!closed && length > 0) {
            buffer.push(Protocol.MAPPING_WRITE_BACK, buffer.byteOffset() + offset, shadow);
        }
    }

    @Override
    public void invalidate(long rangeOffset, long rangeLength) {
        checkOpen();
        long resolved = Checks.range("invalidate", rangeOffset, rangeLength, length);
        if (resolved > 0) {
            buffer.fetch(buffer.byteOffset() + offset + rangeOffset, shadow.asSlice(rangeOffset, resolved));
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        buffer.unmapped(this);
        try {
            if (MemoryAccess.has(access, MemoryAccess.WRITE) && length > 0) {
                // host writes are never lost at unmap (unless the memory was deallocated meanwhile)
                buffer.push(Protocol.MAPPING_WRITE_BACK, buffer.byteOffset() + offset, shadow);
            }
        } finally {
            if (arena != null) {
                arena.close();
            }
            buffer.release(); // the reference map() took
        }
    }

    @Override
    public String toString() {
        return "mapping [" + offset + ", " + (offset + length) + ") of " + buffer;
    }
}
