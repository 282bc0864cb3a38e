package dev.ortho.hal.spi;

import dev.ortho.hal.Allocator;
import dev.ortho.hal.AllocatorStatistics;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.MemoryHeap;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;

/**
 * An {@link Allocator} forwarding to the allocator of a wrapped device; the buffers it allocates
 * or imports are handed out through {@link ForwardingDevice#wrapBuffer}. Borrowed from its device
 * like any allocator. Thread-safe (stateless).
 */
public class ForwardingAllocator implements Allocator {
    private final ForwardingDevice owner;
    private final Allocator delegate;

    /** Forwards to {@code delegate}, the allocator of {@code owner}'s inner device. */
    public ForwardingAllocator(ForwardingDevice owner, Allocator delegate) {
        this.owner = Objects.requireNonNull(owner, "owner");
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The device that handed this allocator out. */
    public final ForwardingDevice owner() {
        return owner;
    }

    /** The wrapped allocator. */
    public final Allocator delegate() {
        return delegate;
    }

    @Override
    public List<MemoryHeap> heaps() {
        return delegate.heaps();
    }

    @Override
    public int queryBufferCompatibility(BufferParams params, long size) {
        return delegate.queryBufferCompatibility(params, size);
    }

    @Override
    public Buffer allocateBuffer(BufferParams params, long size) {
        return owner.wrapBuffer(delegate.allocateBuffer(params, size), null);
    }

    @Override
    public Buffer importBuffer(BufferParams params, MemorySegment memory, Runnable releaseCallback) {
        return owner.wrapBuffer(delegate.importBuffer(params, memory, releaseCallback), null);
    }

    @Override
    public AllocatorStatistics statistics() {
        return delegate.statistics();
    }

    @Override
    public void trim() {
        delegate.trim();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "(" + delegate + ")";
    }
}
