package dev.ortho.hal.validation.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.spi.ForwardingExecutableCache;

/**
 * An executable cache handed out by a {@link ValidatingDevice}: the format must be one the
 * device supports (INCOMPATIBLE, the Ortho API's code; IREE's local cache says NOT_FOUND), the
 * parameters complete, no use after the last release. Thread-safe.
 */
final class ValidatingExecutableCache extends ForwardingExecutableCache {
    private final Liveness liveness = new Liveness();

    ValidatingExecutableCache(ValidatingDevice owner, ExecutableCache delegate) {
        super(owner, delegate);
    }

    @Override
    public boolean canPrepareFormat(String format) {
        liveness.check("executableCache.canPrepareFormat", this);
        return super.canPrepareFormat(format);
    }

    @Override
    public Executable prepareExecutable(ExecutableParams params) {
        String call = "executableCache.prepareExecutable";
        liveness.check(call, this);
        Checks.requireNonNull(params, call, "params");
        Checks.requireNonNull(params.format(), call, "params.format");
        Checks.requireNonNull(params.data(), call, "params.data");
        if (!delegate().canPrepareFormat(params.format())) {
            throw Checks.fail(StatusCode.INCOMPATIBLE, call, "params.format", "format '" + params.format()
                    + "' is not supported by " + owner().delegate());
        }
        return super.prepareExecutable(params);
    }

    @Override
    public void retain() {
        liveness.retain("executableCache.retain", this);
        super.retain();
    }

    @Override
    public void release() {
        liveness.release("executableCache.release", this);
        super.release();
    }

    @Override
    public String toString() {
        return "executable cache " + delegate();
    }
}
