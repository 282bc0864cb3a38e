package dev.ortho.hal.cpu.internal.executable;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import dev.ortho.hal.cpu.kernel.KernelFunction;
import dev.ortho.hal.cpu.kernel.KernelLibrary;
import dev.ortho.hal.spi.RefCount;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A prepared {@code jvm-static} executable: the kernel functions it exports, resolved from a
 * {@link KernelLibrary} when prepared. Immutable and thread-safe; holds no native resources.
 */
public final class JvmStaticExecutable implements LocalExecutable {
    private final String library;
    private final KernelFunction[] functions;
    private final RefCount references = new RefCount();

    private JvmStaticExecutable(String library, KernelFunction[] functions) {
        this.library = library;
        this.functions = functions;
    }

    /**
     * Resolves {@code descriptor} against {@code library}.
     *
     * @throws StatusException NOT_FOUND naming a selected function the library lacks,
     *     INVALID_ARGUMENT if a function is selected twice
     */
    static JvmStaticExecutable resolve(JvmStaticFormat.Descriptor descriptor, KernelLibrary library) {
        List<KernelFunction> all = library.functions();
        if (descriptor.functions().isEmpty()) {
            return new JvmStaticExecutable(library.name(), all.toArray(KernelFunction[]::new));
        }
        Map<String, KernelFunction> byName = new HashMap<>();
        for (KernelFunction function : all) {
            byName.put(function.info().name(), function);
        }
        KernelFunction[] selected = new KernelFunction[descriptor.functions().size()];
        for (int i = 0; i < selected.length; i++) {
            String name = descriptor.functions().get(i);
            selected[i] = byName.remove(name);
            if (selected[i] == null) {
                throw new StatusException(all.stream().anyMatch(f -> f.info().name().equals(name))
                        ? StatusCode.INVALID_ARGUMENT : StatusCode.NOT_FOUND, "jvm-static: function '" + name
                        + "' is selected twice or not exported by kernel library '" + library.name() + "'");
            }
        }
        return new JvmStaticExecutable(library.name(), selected);
    }

    @Override
    public String format() {
        return JvmStaticFormat.FORMAT;
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
    public KernelFunction function(int ordinal) {
        if (ordinal < 0 || ordinal >= functions.length) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "function ordinal " + ordinal + " is outside [0, "
                    + functions.length + ") of " + this);
        }
        return functions[ordinal];
    }

    @Override
    public int lookupFunction(String name) {
        for (int i = 0; i < functions.length; i++) {
            if (functions[i].info().name().equals(name)) {
                return i;
            }
        }
        throw new StatusException(StatusCode.NOT_FOUND, "function '" + name + "' is not exported by " + this);
    }

    @Override
    public void retain() {
        references.retain();
    }

    @Override
    public void release() {
        references.release(this);
    }

    @Override
    public String toString() {
        return "jvm-static executable of library '" + library + "'";
    }
}
