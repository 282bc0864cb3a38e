package dev.ortho.hal.cpu.kernel;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.spi.RefCount;
import java.util.List;

/** {@link KernelExecutable#of}: a fixed list of functions and a reference count. Thread-safe. */
final class FixedExecutable implements KernelExecutable {
    private final String format;
    private final String description;
    private final KernelFunction[] functions;
    private final Runnable onLastRelease;
    private final RefCount references = new RefCount();

    FixedExecutable(String format, String description, List<KernelFunction> functions, Runnable onLastRelease) {
        this.format = format;
        this.description = description;
        this.functions = functions.toArray(KernelFunction[]::new);
        this.onLastRelease = onLastRelease;
    }

    @Override
    public KernelFunction function(int ordinal) {
        if (ordinal < 0 || ordinal >= functions.length) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "function ordinal " + ordinal + " is outside [0, "
                    + functions.length + ") of " + this);
        }
        return functions[ordinal];
    }

    @Override
    public String format() {
        return format;
    }

    @Override
    public int functionCount() {
        return functions.length;
    }

    @Override
    public ExecutableFunctionInfo functionInfo(int ordinal) {
        return function(ordinal).info();
    }

    @Override
    public void retain() {
        references.retain();
    }

    @Override
    public void release() {
        if (references.release(this) && onLastRelease != null) {
            onLastRelease.run();
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
