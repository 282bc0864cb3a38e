package dev.ortho.hal.cpu.internal.heap;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.MappedMemory;
import java.lang.foreign.MemorySegment;

/**
 * A mapping of a heap buffer: a view of its host memory (heap memory is host-coherent, so flush
 * and invalidate only check their range). Holds a reference to the buffer until closed, so the
 * memory cannot be freed under it. Not thread-safe, as {@link MappedMemory}.
 */
final class HeapMapping implements MappedMemory {
    private final HeapBuffer buffer;
    private final MemorySegment contents;
    private final long byteOffset;
    private final int access;
    private boolean closed;

    /** Takes over one reference to {@code buffer}, released on close. */
    HeapMapping(HeapBuffer buffer, MemorySegment contents, long byteOffset, int access) {
        this.buffer = buffer;
        this.contents = contents;
        this.byteOffset = byteOffset;
        this.access = access;
    }

    /** @throws StatusException FAILED_PRECONDITION after {@link #close()} */
    @Override
    public MemorySegment contents() {
        if (closed) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                    "mapping [" + byteOffset + ", " + (byteOffset + contents.byteSize()) + ") was unmapped");
        }
        return contents;
    }

    @Override
    public long byteOffset() {
        return byteOffset;
    }

    @Override
    public long byteLength() {
        return contents.byteSize();
    }

    @Override
    public int access() {
        return access;
    }

    @Override
    public void flush(long offset, long length) {
        Ranges.resolve("mapping flush", offset, length, contents.byteSize());
    }

    @Override
    public void invalidate(long offset, long length) {
        Ranges.resolve("mapping invalidate", offset, length, contents.byteSize());
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            buffer.closeMapping();
            buffer.release();
        }
    }
}
