package dev.ortho.hal.remote.internal.client;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.spi.RefCount;
import java.util.List;

/**
 * An executable prepared on a remote device. Its function table arrives with the preparation
 * reply, so lookups and dispatch checks are local. Thread-safe.
 */
final class RemoteExecutable implements Executable {
    private final RemoteDevice device;
    private final long handle;
    private final String format;
    private final List<ExecutableFunctionInfo> functions;
    private final RefCount references = new RefCount();

    RemoteExecutable(RemoteDevice device, long handle, String format, List<ExecutableFunctionInfo> functions) {
        this.device = device;
        this.handle = handle;
        this.format = format;
        this.functions = List.copyOf(functions);
    }

    RemoteDevice device() {
        return device;
    }

    long handle() {
        return handle;
    }

    @Override
    public String format() {
        return format;
    }

    @Override
    public int functionCount() {
        return functions.size();
    }

    @Override
    public ExecutableFunctionInfo functionInfo(int ordinal) {
        if (ordinal < 0 || ordinal >= functions.size()) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "function ordinal " + ordinal + " is outside [0, "
                    + functions.size() + ") of " + this);
        }
        return functions.get(ordinal);
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
        return "remote " + format + " executable " + handle;
    }
}
