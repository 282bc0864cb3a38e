package dev.ortho.itest.hal.loader;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cpu.kernel.ExecutableLoader;
import dev.ortho.hal.cpu.kernel.KernelExecutable;
import dev.ortho.hal.cpu.kernel.LoaderContext;
import java.util.Set;

/**
 * Loads format {@value #FORMAT}: the data must be the ASCII text {@code negate}; the executable
 * exports {@code negate} (bindings in, out; constant n): {@code out[i] = -in[i]} over i32s.
 */
public final class NegateLoader implements ExecutableLoader {
    /** The format this loader adds. */
    public static final String FORMAT = "itest-negate-i32";

    @Override
    public Set<String> formats() {
        return Set.of(FORMAT);
    }

    @Override
    public KernelExecutable load(ExecutableParams params, LoaderContext context) {
        if (params.data() == null || !new String(params.data().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                java.nio.charset.StandardCharsets.US_ASCII).equals("negate")) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, FORMAT + " data must be 'negate'");
        }
        return new NegateExecutable();
    }
}
