package dev.ortho.hal.cpu.internal.command;

import dev.ortho.hal.Event;
import dev.ortho.hal.spi.RefCount;

/**
 * An event of a CPU device. Local command buffers execute their commands strictly in order on
 * one thread, so every signal precedes the waits recorded after it and events carry no state.
 * Thread-safe.
 */
public final class LocalEvent implements Event {
    private final RefCount references = new RefCount();

    @Override
    public void retain() {
        references.retain();
    }

    @Override
    public void release() {
        references.release(this);
    }

    @Override
    public String toString() {
        return "local event";
    }
}
