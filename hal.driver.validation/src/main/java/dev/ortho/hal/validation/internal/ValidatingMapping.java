package dev.ortho.hal.validation.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.hal.MappedMemory;
import dev.ortho.hal.spi.ForwardingMappedMemory;
import java.lang.foreign.MemorySegment;

/**
 * A mapping handed out by a {@link ValidatingBuffer}: flush and invalidate must name a range
 * inside the mapping, and nothing may touch the mapping after it was unmapped (closed). Closing
 * twice is allowed (the API makes {@code close} idempotent). Not thread-safe, like any mapping.
 */
final class ValidatingMapping extends ForwardingMappedMemory {
    private final ValidatingBuffer buffer;
    private boolean unmapped;

    ValidatingMapping(ValidatingBuffer buffer, MappedMemory delegate) {
        super(delegate);
        this.buffer = buffer;
    }

    private void checkMapped(String call) {
        if (unmapped) {
            throw Checks.fail(StatusCode.FAILED_PRECONDITION, call, "mapping", "the mapping of " + buffer
                    + " at [" + byteOffsetUnchecked() + ", " + (byteOffsetUnchecked() + delegate().byteLength())
                    + ") is not mapped any more (it was closed)");
        }
    }

    private long byteOffsetUnchecked() {
        return delegate().byteOffset();
    }

    @Override
    public MemorySegment contents() {
        checkMapped("mapping.contents");
        return super.contents();
    }

    @Override
    public long byteOffset() {
        checkMapped("mapping.byteOffset");
        return super.byteOffset();
    }

    @Override
    public long byteLength() {
        checkMapped("mapping.byteLength");
        return super.byteLength();
    }

    @Override
    public int access() {
        checkMapped("mapping.access");
        return super.access();
    }

    @Override
    public void flush(long offset, long length) {
        checkMapped("mapping.flush");
        Checks.range("mapping.flush", "range", offset, length, delegate().byteLength());
        super.flush(offset, length);
    }

    @Override
    public void invalidate(long offset, long length) {
        checkMapped("mapping.invalidate");
        Checks.range("mapping.invalidate", "range", offset, length, delegate().byteLength());
        super.invalidate(offset, length);
    }

    @Override
    public void close() {
        if (!unmapped) {
            unmapped = true;
            super.close();
        }
    }
}
