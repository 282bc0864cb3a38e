package dev.ortho.hal.validation.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.spi.ForwardingExecutable;

/**
 * An executable handed out by a {@link ValidatingDevice}: function ordinals must be in
 * {@code [0, functionCount)} (OUT_OF_RANGE, the Ortho API's code for it), no use after the last
 * release. Thread-safe (the function count is read once; executables are immutable).
 */
final class ValidatingExecutable extends ForwardingExecutable {
    private final Liveness liveness = new Liveness();
    private final int functionCount;

    ValidatingExecutable(ValidatingDevice owner, Executable delegate) {
        super(owner, delegate);
        this.functionCount = delegate.functionCount();
    }

    void checkLive(String call) {
        liveness.check(call, this);
    }

    void checkLive(String call, String argument) {
        liveness.check(call, argument, this);
    }

    /** OUT_OF_RANGE naming {@code call}, the ordinal and the function count. */
    void checkOrdinal(String call, int ordinal) {
        if (ordinal < 0 || ordinal >= functionCount) {
            throw Checks.fail(StatusCode.OUT_OF_RANGE, call, "function", "ordinal " + ordinal + " is outside [0, "
                    + functionCount + ") of " + this);
        }
    }

    @Override
    public String format() {
        checkLive("executable.format");
        return super.format();
    }

    @Override
    public int functionCount() {
        checkLive("executable.functionCount");
        return functionCount;
    }

    @Override
    public ExecutableFunctionInfo functionInfo(int ordinal) {
        checkLive("executable.functionInfo");
        checkOrdinal("executable.functionInfo", ordinal);
        return super.functionInfo(ordinal);
    }

    @Override
    public int lookupFunction(String name) {
        checkLive("executable.lookupFunction");
        Checks.requireNonNull(name, "executable.lookupFunction", "name");
        return super.lookupFunction(name);
    }

    @Override
    public void retain() {
        liveness.retain("executable.retain", this);
        super.retain();
    }

    @Override
    public void release() {
        liveness.release("executable.release", this);
        super.release();
    }

    @Override
    public String toString() {
        return "executable " + delegate();
    }
}
