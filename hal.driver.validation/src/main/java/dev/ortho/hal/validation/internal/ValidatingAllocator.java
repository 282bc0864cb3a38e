package dev.ortho.hal.validation.internal;

import dev.ortho.hal.Allocator;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.spi.ForwardingAllocator;
import java.lang.foreign.MemorySegment;

/**
 * The allocator of a {@link ValidatingDevice}: refuses to allocate for a released device and
 * checks arguments the inner allocator would otherwise dereference; the inner allocator keeps
 * its own checks (sizes, alignment, parameters). Thread-safe.
 */
final class ValidatingAllocator extends ForwardingAllocator {
    private final ValidatingDevice device;

    ValidatingAllocator(ValidatingDevice owner, Allocator delegate) {
        super(owner, delegate);
        this.device = owner;
    }

    @Override
    public int queryBufferCompatibility(BufferParams params, long size) {
        Checks.requireNonNull(params, "allocator.queryBufferCompatibility", "params");
        return super.queryBufferCompatibility(params, size);
    }

    @Override
    public Buffer allocateBuffer(BufferParams params, long size) {
        device.checkLive("allocator.allocateBuffer");
        Checks.requireNonNull(params, "allocator.allocateBuffer", "params");
        return super.allocateBuffer(params, size);
    }

    @Override
    public Buffer importBuffer(BufferParams params, MemorySegment memory, Runnable releaseCallback) {
        device.checkLive("allocator.importBuffer");
        Checks.requireNonNull(params, "allocator.importBuffer", "params");
        Checks.requireNonNull(memory, "allocator.importBuffer", "memory");
        return super.importBuffer(params, memory, releaseCallback);
    }
}
