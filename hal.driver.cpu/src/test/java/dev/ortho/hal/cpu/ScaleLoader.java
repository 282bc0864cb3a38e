package dev.ortho.hal.cpu;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cpu.kernel.ExecutableLoader;
import dev.ortho.hal.cpu.kernel.KernelExecutable;
import dev.ortho.hal.cpu.kernel.KernelFunction;
import dev.ortho.hal.cpu.kernel.LoaderContext;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loader of the made-up format {@value #FORMAT}, as a user bundle would write one: the data is
 * a little-endian i32 factor; the executable exports {@code scale} (bindings in, out; constant n)
 * computing {@code out[i] = in[i] * factor} in one workgroup. Empty data is "not mine"
 * (NOT_FOUND, the next loader may take it); other sizes are INVALID_ARGUMENT.
 */
final class ScaleLoader implements ExecutableLoader {
    static final String FORMAT = "test-scale-i32";
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    final AtomicInteger live = new AtomicInteger();

    @Override
    public Set<String> formats() {
        return Set.of(FORMAT);
    }

    @Override
    public KernelExecutable load(ExecutableParams params, LoaderContext context) {
        long size = params.data().byteSize();
        if (size == 0) {
            throw new StatusException(StatusCode.NOT_FOUND, "no factor in the data");
        }
        if (size != 4) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, FORMAT + " data is " + size + " bytes, needs 4");
        }
        int factor = params.data().get(I32, 0);
        KernelFunction scale = new KernelFunction(new ExecutableFunctionInfo("scale", 1, 2, 1, 1, 1, 0),
                (dispatch, workgroup) -> {
                    int n = dispatch.constant(0);
                    var in = dispatch.requireBinding(0, 4L * n);
                    var out = dispatch.requireBinding(1, 4L * n);
                    for (int i = 0; i < n; i++) {
                        out.setAtIndex(I32, i, in.getAtIndex(I32, i) * factor);
                    }
                });
        live.incrementAndGet();
        return KernelExecutable.of(FORMAT, FORMAT + " executable", List.of(scale), live::decrementAndGet);
    }
}
