package dev.ortho.hal.cpu.internal.command;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Event;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An event of a CPU device. Local command buffers execute their commands strictly in order on
 * one thread, so every signal precedes the waits recorded after it and events carry no state.
 * Thread-safe.
 */
public final class LocalEvent implements Event {
    private final AtomicInteger references = new AtomicInteger(1);

    @Override
    public void retain() {
        references.incrementAndGet();
    }

    @Override
    public void release() {
        if (references.decrementAndGet() < 0) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "event released more times than retained");
        }
    }
}
