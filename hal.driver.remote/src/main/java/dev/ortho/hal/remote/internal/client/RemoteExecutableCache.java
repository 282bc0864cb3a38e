package dev.ortho.hal.remote.internal.client;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.remote.internal.protocol.FrameReader;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.spi.RefCount;
import java.util.ArrayList;
import java.util.List;

/**
 * An executable cache of a remote device. Preparation round-trips (the server checks the format
 * against its trusted list and returns the function table); the executable's handle is assigned
 * here. Thread-safe.
 */
final class RemoteExecutableCache implements ExecutableCache {
    private final RemoteDevice device;
    private final long handle;
    private final RefCount references = new RefCount();

    RemoteExecutableCache(RemoteDevice device, long handle) {
        this.device = device;
        this.handle = handle;
    }

    @Override
    public boolean canPrepareFormat(String format) {
        Checks.notNull(format, "format");
        RemoteConnection connection = device.connection();
        return connection.call(connection.request(Protocol.CACHE_CAN_PREPARE).putI64(handle).putString(format),
                "canPrepareFormat").u8("answer") != 0;
    }

    @Override
    public Executable prepareExecutable(ExecutableParams params) {
        Checks.notNull(params, "executable params");
        Checks.notNull(params.format(), "executable format");
        Checks.notNull(params.data(), "executable data");
        long size = params.data().byteSize();
        if (size > Protocol.TRANSFER_CHUNK_BYTES * 3L) {
            throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, "executable of " + size
                    + " bytes exceeds the remote limit of " + Protocol.TRANSFER_CHUNK_BYTES * 3L + " bytes");
        }
        int[] constants = params.constants() == null ? new int[0] : params.constants();
        RemoteConnection connection = device.connection();
        long executable = connection.newHandle();
        FrameWriter request = connection.request(Protocol.CACHE_PREPARE, (int) size + 64).putI64(handle)
                .putI64(executable).putString(params.format()).putBytes(params.data(), 0, (int) size)
                .putI32(constants.length);
        for (int constant : constants) {
            request.putI32(constant);
        }
        FrameReader reply = connection.call(request, "prepareExecutable(" + params.format() + ")");
        String format = reply.string("format");
        int count = reply.count("functions");
        List<ExecutableFunctionInfo> functions = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            functions.add(new ExecutableFunctionInfo(reply.string("name"), reply.i32("constant count"),
                    reply.i32("binding count"), reply.i32("workgroup size x"), reply.i32("workgroup size y"),
                    reply.i32("workgroup size z"), reply.i32("local memory")));
        }
        reply.end();
        return new RemoteExecutable(device, executable, format, functions);
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
        return "remote executable cache " + handle;
    }
}
