package dev.ortho.hal.remote.internal.client;

import dev.ortho.hal.Event;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.spi.RefCount;

/** An event of a remote device: a handle, created one-way. Thread-safe. */
final class RemoteEvent implements Event {
    private final RemoteDevice device;
    private final long handle;
    private final RefCount references = new RefCount();

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
        references.retain();
    }

    @Override
    public void release() {
        if (references.release(this)) {
            device.connection().sendQuietly(device.connection().request(Protocol.RELEASE).putI64(handle));
        }
    }

    @Override
    public String toString() {
        return "remote event " + handle;
    }
}
