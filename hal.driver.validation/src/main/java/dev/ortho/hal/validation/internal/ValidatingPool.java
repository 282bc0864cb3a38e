package dev.ortho.hal.validation.internal;

import dev.ortho.hal.Pool;
import dev.ortho.hal.PoolCapabilities;
import dev.ortho.hal.PoolStatistics;
import dev.ortho.hal.spi.ForwardingPool;

/** A pool handed out by a {@link ValidatingDevice}: catches use after the last release. Thread-safe. */
final class ValidatingPool extends ForwardingPool {
    private final Liveness liveness = new Liveness();

    ValidatingPool(ValidatingDevice owner, Pool delegate) {
        super(owner, delegate);
    }

    void checkLive(String call, String argument) {
        liveness.check(call, argument, this);
    }

    @Override
    public PoolCapabilities capabilities() {
        liveness.check("pool.capabilities", this);
        return super.capabilities();
    }

    @Override
    public PoolStatistics statistics() {
        liveness.check("pool.statistics", this);
        return super.statistics();
    }

    @Override
    public void trim() {
        liveness.check("pool.trim", this);
        super.trim();
    }

    @Override
    public void retain() {
        liveness.retain("pool.retain", this);
        super.retain();
    }

    @Override
    public void release() {
        liveness.release("pool.release", this);
        super.release();
    }

    @Override
    public String toString() {
        return delegate().toString();
    }
}
