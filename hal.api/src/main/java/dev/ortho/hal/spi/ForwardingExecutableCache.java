package dev.ortho.hal.spi;

import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableParams;
import java.util.Objects;

/**
 * An {@link ExecutableCache} forwarding to a cache of a wrapped device; prepared executables are
 * handed out through {@link ForwardingDevice#wrapExecutable}. Thread-safe.
 */
public class ForwardingExecutableCache implements ExecutableCache {
    private final ForwardingDevice owner;
    private final ExecutableCache delegate;

    /** Forwards to {@code delegate}, taking over the caller's reference to it. */
    public ForwardingExecutableCache(ForwardingDevice owner, ExecutableCache delegate) {
        this.owner = Objects.requireNonNull(owner, "owner");
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The device that handed this cache out. */
    public final ForwardingDevice owner() {
        return owner;
    }

    /** The wrapped cache. */
    public final ExecutableCache delegate() {
        return delegate;
    }

    @Override
    public boolean canPrepareFormat(String format) {
        return delegate.canPrepareFormat(format);
    }

    @Override
    public Executable prepareExecutable(ExecutableParams params) {
        return owner.wrapExecutable(delegate.prepareExecutable(params));
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
