package dev.ortho.hal.validation.internal;

import dev.ortho.hal.Channel;
import dev.ortho.hal.spi.ForwardingChannel;

/** A collective channel handed out by a {@link ValidatingDevice}: catches use after the last release. Thread-safe. */
final class ValidatingChannel extends ForwardingChannel {
    private final Liveness liveness = new Liveness();

    ValidatingChannel(ValidatingDevice owner, Channel delegate) {
        super(owner, delegate);
    }

    void checkLive(String call) {
        liveness.check(call, this);
    }

    void checkLive(String call, String argument) {
        liveness.check(call, argument, this);
    }

    @Override
    public int rank() {
        checkLive("channel.rank");
        return super.rank();
    }

    @Override
    public int count() {
        checkLive("channel.count");
        return super.count();
    }

    @Override
    public void retain() {
        liveness.retain("channel.retain", this);
        super.retain();
    }

    @Override
    public void release() {
        liveness.release("channel.release", this);
        super.release();
    }

    @Override
    public String toString() {
        return "channel " + delegate();
    }
}
