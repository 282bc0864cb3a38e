package dev.ortho.hal.spi;

import dev.ortho.hal.Event;
import java.util.Objects;

/** An {@link Event} forwarding to an event of a wrapped device. Thread-safe. */
public class ForwardingEvent implements Event {
    private final ForwardingDevice owner;
    private final Event delegate;

    /** Forwards to {@code delegate}, taking over the caller's reference to it. */
    public ForwardingEvent(ForwardingDevice owner, Event delegate) {
        this.owner = Objects.requireNonNull(owner, "owner");
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The device that handed this event out. */
    public final ForwardingDevice owner() {
        return owner;
    }

    /** The wrapped event. */
    public final Event delegate() {
        return delegate;
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
