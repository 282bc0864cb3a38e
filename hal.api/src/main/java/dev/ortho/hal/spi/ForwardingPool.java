package dev.ortho.hal.spi;

import dev.ortho.hal.Device;
import dev.ortho.hal.Pool;
import dev.ortho.hal.PoolCapabilities;
import dev.ortho.hal.PoolStatistics;
import java.util.Objects;

/**
 * A {@link Pool} forwarding to a pool of a wrapped device. It belongs to the wrapping device
 * ({@link #device()} is the {@link ForwardingDevice} that handed it out), so allocas through that
 * device accept it and {@link ForwardingDevice#unwrap(Pool)} gives the inner device its own pool.
 * Thread-safe (stateless).
 */
public class ForwardingPool implements Pool {
    private final ForwardingDevice owner;
    private final Pool delegate;

    /** Forwards to {@code delegate}, taking over the caller's reference to it. */
    public ForwardingPool(ForwardingDevice owner, Pool delegate) {
        this.owner = Objects.requireNonNull(owner, "owner");
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The device that handed this pool out. */
    public final ForwardingDevice owner() {
        return owner;
    }

    /** The wrapped pool. */
    public final Pool delegate() {
        return delegate;
    }

    /** The wrapping device that handed this pool out. */
    @Override
    public Device device() {
        return owner;
    }

    @Override
    public PoolCapabilities capabilities() {
        return delegate.capabilities();
    }

    @Override
    public PoolStatistics statistics() {
        return delegate.statistics();
    }

    @Override
    public void trim() {
        delegate.trim();
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
