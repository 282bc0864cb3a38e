package dev.ortho.itest.hal.loader;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cpu.kernel.ExecutableLoader;
import dev.ortho.hal.cpu.kernel.KernelExecutable;
import dev.ortho.hal.cpu.kernel.KernelFunction;
import dev.ortho.hal.cpu.kernel.LoaderContext;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

/**
 * Loads format {@value #FORMAT}: the data must be the ASCII text {@code negate}; the executable
 * exports {@code negate} (bindings in, out; constant n): {@code out[i] = -in[i]} over i32s.
 */
public final class NegateLoader implements ExecutableLoader {
    /** The format this loader adds. */
    public static final String FORMAT = "itest-negate-i32";
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
    public Set<String> formats() {
        return Set.of(FORMAT);
    }

    @Override
    public KernelExecutable load(ExecutableParams params, LoaderContext context) {
        if (params.data() == null || !new String(params.data().toArray(ValueLayout.JAVA_BYTE),
                StandardCharsets.US_ASCII).equals("negate")) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, FORMAT + " data must be 'negate'");
        }
        return KernelExecutable.of(FORMAT, FORMAT + " executable", List.of(NEGATE), null);
    }
}
