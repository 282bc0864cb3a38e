package dev.ortho.hal.remote.internal.client;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Event;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import java.util.concurrent.atomic.AtomicInteger;

/** An event of a remote device: a handle, created one-way. Thread-safe. */
final class RemoteEvent implements Event {
    private final RemoteDevice device;
    private final long handle;
    private final AtomicInteger references = new AtomicInteger(1);

    RemoteEvent(RemoteDevice device, long handle) {
        this.device = device;
        this.handle = handle;
    }

    RemoteDevice device() {
        return device;
    }

    long handle() {
        return handle;
    }

    @Override
    public void retain() {
        references.incrementAndGet();
    }

    @Override
    public void release() {
        int remaining = references.decrementAndGet();
        if (remaining == 0) {
            device.connection().sendQuietly(device.connection().request(Protocol.RELEASE).putI64(handle));
        } else if (remaining < 0) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, this + " released more times than retained");
        }
    }

    @Override
    public String toString() {
        return "remote event " + handle;
    }
}
