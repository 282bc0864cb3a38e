package dev.ortho.itest.hal.loader;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.cpu.kernel.KernelExecutable;
import dev.ortho.hal.cpu.kernel.KernelFunction;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** The one-function executable of {@link NegateLoader}; holds nothing to free. Thread-safe. */
public final class NegateExecutable implements KernelExecutable {
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final KernelFunction NEGATE = new KernelFunction(
            new ExecutableFunctionInfo("negate", 1, 2, 1, 1, 1, 0), (dispatch, workgroup) -> {
                int n = dispatch.constant(0);
                MemorySegment in = dispatch.requireBinding(0, 4L * n);
                MemorySegment out = dispatch.requireBinding(1, 4L * n);
                for (int i = 0; i < n; i++) {
                    out.setAtIndex(I32, i, -in.getAtIndex(I32, i));
                }
            });

    @Override
    public KernelFunction function(int ordinal) {
        if (ordinal != 0) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "function ordinal " + ordinal + " is outside [0, 1)");
        }
        return NEGATE;
    }

    @Override
    public String format() {
        return NegateLoader.FORMAT;
    }

    @Override
    public int functionCount() {
        return 1;
    }

    @Override
    public ExecutableFunctionInfo functionInfo(int ordinal) {
        return function(ordinal).info();
    }

    @Override
    public int lookupFunction(String name) {
        if (!"negate".equals(name)) {
            throw new StatusException(StatusCode.NOT_FOUND, "function '" + name + "' is not exported by " + FORMAT);
        }
        return 0;
    }

    @Override
    public void retain() {
    }

    @Override
    public void release() {
    }

    private static final String FORMAT = NegateLoader.FORMAT;
}
