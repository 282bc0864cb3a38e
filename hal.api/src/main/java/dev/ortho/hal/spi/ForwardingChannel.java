package dev.ortho.hal.spi;

import dev.ortho.hal.Channel;
import java.util.Objects;

/** A collective {@link Channel} forwarding to a channel of a wrapped device. Thread-safe. */
public class ForwardingChannel implements Channel {
    private final ForwardingDevice owner;
    private final Channel delegate;

    /** Forwards to {@code delegate}, taking over the caller's reference to it. */
    public ForwardingChannel(ForwardingDevice owner, Channel delegate) {
        this.owner = Objects.requireNonNull(owner, "owner");
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The device that handed this channel out. */
    public final ForwardingDevice owner() {
        return owner;
    }

    /** The wrapped channel. */
    public final Channel delegate() {
        return delegate;
    }

    @Override
    public int rank() {
        return delegate.rank();
    }

    @Override
    public int count() {
        return delegate.count();
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
