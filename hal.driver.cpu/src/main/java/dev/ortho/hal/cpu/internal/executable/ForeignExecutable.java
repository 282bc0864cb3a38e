package dev.ortho.hal.cpu.internal.executable;

import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.cpu.kernel.KernelExecutable;
import dev.ortho.hal.cpu.kernel.KernelFunction;

/**
 * A {@link KernelExecutable} of a loader outside this bundle, marked as prepared by a local CPU
 * device. Owns the one reference the loader handed over and forwards everything else. Thread-safe
 * as the wrapped executable.
 */
final class ForeignExecutable implements LocalExecutable {
    private final KernelExecutable delegate;

    private ForeignExecutable(KernelExecutable delegate) {
        this.delegate = delegate;
    }

    /** {@code executable} as a local executable (itself if it already is one); takes over its reference. */
    static LocalExecutable adopt(KernelExecutable executable) {
        return executable instanceof LocalExecutable local ? local : new ForeignExecutable(executable);
    }

    @Override
    public KernelFunction function(int ordinal) {
        return delegate.function(ordinal);
    }

    @Override
    public String format() {
        return delegate.format();
    }

    @Override
    public int functionCount() {
        return delegate.functionCount();
    }

    @Override
    public ExecutableFunctionInfo functionInfo(int ordinal) {
        return delegate.functionInfo(ordinal);
    }

    @Override
    public int lookupFunction(String name) {
        return delegate.lookupFunction(name);
    }

    @Override
    public void retain() {
        delegate.retain();
    }

    @Override
    public void release() {
        delegate.release();
    }

    @Override
    public String toString() {
        return delegate.toString();
    }
}
