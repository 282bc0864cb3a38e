package dev.ortho.hal.spi;

import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableFunctionInfo;
import java.util.Objects;

/** An {@link Executable} forwarding to an executable of a wrapped device. Thread-safe. */
public class ForwardingExecutable implements Executable {
    private final ForwardingDevice owner;
    private final Executable delegate;

    /** Forwards to {@code delegate}, taking over the caller's reference to it. */
    public ForwardingExecutable(ForwardingDevice owner, Executable delegate) {
        this.owner = Objects.requireNonNull(owner, "owner");
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The device that handed this executable out. */
    public final ForwardingDevice owner() {
        return owner;
    }

    /** The wrapped executable. */
    public final Executable delegate() {
        return delegate;
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
