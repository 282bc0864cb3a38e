package dev.ortho.hal.spi;

import dev.ortho.hal.Buffer;
import dev.ortho.hal.MappedMemory;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A {@link Buffer} forwarding to a buffer of a wrapped device. Subspans are handed out through
 * {@link ForwardingDevice#wrapBuffer} with this buffer's root wrapper, so
 * {@link #allocatedBuffer()} is the same object for a root and all its subspans. Mappings are the
 * inner buffer's (override {@link #map} to wrap them, e.g. with {@link ForwardingMappedMemory}).
 *
 * <p>{@code retain}/{@code release} forward one to one. Thread-safe as the inner buffer is.
 */
public class ForwardingBuffer implements Buffer {
    private final ForwardingDevice owner;
    private final Buffer delegate;
    private final Buffer allocatedBuffer;

    /**
     * @param owner the device that hands this buffer out
     * @param delegate the inner buffer; this wrapper takes over the caller's reference
     * @param allocatedBuffer the wrapper of the root allocation if {@code delegate} is a subspan,
     *     or null if it is a root (this wrapper then is its own allocated buffer)
     */
    public ForwardingBuffer(ForwardingDevice owner, Buffer delegate, Buffer allocatedBuffer) {
        this.owner = Objects.requireNonNull(owner, "owner");
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.allocatedBuffer = allocatedBuffer == null ? this : allocatedBuffer;
    }

    /** The device that handed this buffer out. */
    public final ForwardingDevice owner() {
        return owner;
    }

    /** The wrapped buffer. */
    public final Buffer delegate() {
        return delegate;
    }

    @Override
    public Buffer allocatedBuffer() {
        return allocatedBuffer;
    }

    @Override
    public long allocationSize() {
        return delegate.allocationSize();
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
    public int memoryType() {
        return delegate.memoryType();
    }

    @Override
    public int allowedAccess() {
        return delegate.allowedAccess();
    }

    @Override
    public int allowedUsage() {
        return delegate.allowedUsage();
    }

    @Override
    public Buffer subspan(long offset, long length) {
        return owner.wrapBuffer(delegate.subspan(offset, length), allocatedBuffer);
    }

    @Override
    public MappedMemory map(int mode, int access, long offset, long length) {
        return delegate.map(mode, access, offset, length);
    }

    @Override
    public MappedMemory map(int access, long offset, long length) {
        return delegate.map(access, offset, length);
    }

    @Override
    public void read(long offset, MemorySegment target) {
        delegate.read(offset, target);
    }

    @Override
    public void write(long offset, MemorySegment source) {
        delegate.write(offset, source);
    }

    @Override
    public void fill(long offset, long length, int pattern, int patternLength) {
        delegate.fill(offset, length, pattern, patternLength);
    }

    @Override
    public void retain() {
        delegate.retain();
    }

    @Override
    public void release() {
        delegate.release();
    }

    @Override
    public String toString() {
        return delegate.toString();
    }
}
