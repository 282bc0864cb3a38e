package dev.ortho.hal.validation.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.Timepoint;
import dev.ortho.hal.TimepointCallback;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.frontier.SemaphoreScope;
import dev.ortho.hal.spi.ForwardingSemaphore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A semaphore handed out by a {@link ValidatingDevice}: payload values within IREE's
 * {@code [0, IREE_HAL_SEMAPHORE_MAX_VALUE]} (OUT_OF_RANGE), signals strictly increasing
 * (INVALID_ARGUMENT), no use after the last release (FAILED_PRECONDITION). It also remembers the
 * highest value a queue operation was submitted to signal, so a second operation scheduled to
 * signal that same value is caught at submission, before it could fail asynchronously (a lower
 * value is legal: on an asynchronous device the later submission may run first).
 * Thread-safe.
 */
final class ValidatingSemaphore extends ForwardingSemaphore {
    private final Liveness liveness = new Liveness();
    private final ValidatingDevice device;
    /** Highest value a submitted queue operation will signal; only grows. */
    private final AtomicLong scheduled = new AtomicLong(-1);

    ValidatingSemaphore(ValidatingDevice owner, Semaphore delegate) {
        super(owner, delegate);
        this.device = owner;
    }

    ValidatingDevice device() {
        return device;
    }

    void checkLive(String call) {
        liveness.check(call, this);
    }

    void checkLive(String call, String list, int index) {
        liveness.check(call, list, index, this);
    }

    long scheduled() {
        return scheduled.get();
    }

    /** Records that a submitted queue operation will signal {@code value}. */
    void schedule(long value) {
        scheduled.accumulateAndGet(value, Math::max);
    }

    @Override
    public SemaphoreScope scope() {
        checkLive("semaphore.scope");
        return super.scope();
    }

    @Override
    public long query() {
        checkLive("semaphore.query");
        return super.query();
    }

    @Override
    public StatusException failure() {
        checkLive("semaphore.failure");
        return super.failure();
    }

    @Override
    public void signal(long value) {
        checkSignal("semaphore.signal", value);
        super.signal(value);
    }

    @Override
    public void signal(long value, Frontier frontier) {
        checkSignal("semaphore.signal", value);
        super.signal(value, frontier);
    }

    private void checkSignal(String call, long value) {
        checkLive(call);
        Checks.payload(call, "value", value);
        if (delegate().failure() != null) {
            return; // the inner semaphore reports its failure, as the API specifies
        }
        long current;
        try {
            current = delegate().query();
        } catch (StatusException failedMeanwhile) {
            return;
        }
        if (value <= current) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "value", "value " + value + " of " + this
                    + " is not above its current value " + current + " (signals must strictly increase)");
        }
    }

    @Override
    public boolean frontierAt(long value, Frontier out) {
        checkLive("semaphore.frontierAt");
        Checks.payload("semaphore.frontierAt", "value", value);
        Checks.requireNonNull(out, "semaphore.frontierAt", "out");
        return super.frontierAt(value, out);
    }

    @Override
    public void fail(StatusException status) {
        checkLive("semaphore.fail");
        Checks.requireNonNull(status, "semaphore.fail", "status");
        super.fail(status);
    }

    @Override
    public void await(long value, Timeout timeout) {
        checkLive("semaphore.await");
        Checks.payload("semaphore.await", "value", value);
        Checks.requireNonNull(timeout, "semaphore.await", "timeout");
        super.await(value, timeout);
    }

    @Override
    public Timepoint addTimepoint(long value, TimepointCallback callback) {
        checkLive("semaphore.addTimepoint");
        Checks.payload("semaphore.addTimepoint", "value", value);
        Checks.requireNonNull(callback, "semaphore.addTimepoint", "callback");
        return super.addTimepoint(value, callback);
    }

    @Override
    public void retain() {
        liveness.retain("semaphore.retain", this);
        super.retain();
    }

    @Override
    public void release() {
        liveness.release("semaphore.release", this);
        super.release();
    }

    @Override
    public String toString() {
        return delegate().toString();
    }
}
