package dev.ortho.hal.spi;

import dev.ortho.hal.MappedMemory;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A {@link MappedMemory} forwarding to a mapping of a wrapped buffer. Not thread-safe, like any
 * mapping.
 */
public class ForwardingMappedMemory implements MappedMemory {
    private final MappedMemory delegate;

    /** Forwards to {@code delegate}; closing this mapping closes it. */
    public ForwardingMappedMemory(MappedMemory delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The wrapped mapping. */
    public final MappedMemory delegate() {
        return delegate;
    }

    @Override
    public MemorySegment contents() {
        return delegate.contents();
    }

    @Override
    public long byteOffset() {
        return delegate.byteOffset();
    }

    @Override
    public long byteLength() {
        return delegate.byteLength();
    }

    @Override
    public int access() {
        return delegate.access();
    }

    @Override
    public void flush(long offset, long length) {
        delegate.flush(offset, length);
    }

    @Override
    public void invalidate(long offset, long length) {
        delegate.invalidate(offset, length);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
