package dev.ortho.hal.validation.internal;

import dev.ortho.hal.Event;
import dev.ortho.hal.spi.ForwardingEvent;

/** An event handed out by a {@link ValidatingDevice}: catches use after the last release. Thread-safe. */
final class ValidatingEvent extends ForwardingEvent {
    private final Liveness liveness = new Liveness();

    ValidatingEvent(ValidatingDevice owner, Event delegate) {
        super(owner, delegate);
    }

    void checkLive(String call, String argument) {
        liveness.check(call, argument, this);
    }

    @Override
    public void retain() {
        liveness.retain("event.retain", this);
        super.retain();
    }

    @Override
    public void release() {
        liveness.release("event.release", this);
        super.release();
    }

    @Override
    public String toString() {
        return "event " + delegate();
    }
}
