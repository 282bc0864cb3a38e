package dev.ortho.hal.spi;

import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.Timepoint;
import dev.ortho.hal.TimepointCallback;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.frontier.SemaphoreScope;
import java.util.Objects;

/**
 * A {@link Semaphore} forwarding to a semaphore of a wrapped device. Timepoint callbacks receive
 * this wrapper, not the inner semaphore, so callers see the object they registered on.
 *
 * <p>{@code retain}/{@code release} forward one to one. Thread-safe as the inner semaphore is.
 */
public class ForwardingSemaphore implements Semaphore {
    private final ForwardingDevice owner;
    private final Semaphore delegate;

    /** Forwards to {@code delegate}, taking over the caller's reference to it. */
    public ForwardingSemaphore(ForwardingDevice owner, Semaphore delegate) {
        this.owner = Objects.requireNonNull(owner, "owner");
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The device that handed this semaphore out. */
    public final ForwardingDevice owner() {
        return owner;
    }

    /** The wrapped semaphore. */
    public final Semaphore delegate() {
        return delegate;
    }

    @Override
    public SemaphoreScope scope() {
        return delegate.scope();
    }

    @Override
    public long query() {
        return delegate.query();
    }

    @Override
    public StatusException failure() {
        return delegate.failure();
    }

    @Override
    public void signal(long value) {
        delegate.signal(value);
    }

    @Override
    public void signal(long value, Frontier frontier) {
        delegate.signal(value, frontier);
    }

    @Override
    public boolean frontierAt(long value, Frontier out) {
        return delegate.frontierAt(value, out);
    }

    @Override
    public void fail(StatusException status) {
        delegate.fail(status);
    }

    @Override
    public void await(long value, Timeout timeout) {
        delegate.await(value, timeout);
    }

    @Override
    public Timepoint addTimepoint(long value, TimepointCallback callback) {
        Objects.requireNonNull(callback, "callback");
        return delegate.addTimepoint(value, (inner, reached, failure) -> callback.onTimepoint(this, reached, failure));
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
