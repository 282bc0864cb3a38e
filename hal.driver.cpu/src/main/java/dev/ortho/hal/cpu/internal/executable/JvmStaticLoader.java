package dev.ortho.hal.cpu.internal.executable;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cpu.kernel.ExecutableLoader;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import dev.ortho.hal.cpu.kernel.KernelExecutable;
import dev.ortho.hal.cpu.kernel.KernelLibrary;
import dev.ortho.hal.cpu.kernel.LoaderContext;
import dev.ortho.hal.cpu.kernel.KernelFunction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code jvm-static} loader: executables name a {@link KernelLibrary} (see
 * {@link JvmStaticFormat}) that is resolved, by name, against the libraries this loader holds
 * when the executable is prepared. Plain Java fills it once; the OSGi component adds and removes
 * libraries as services come and go (executables already prepared keep the functions they
 * resolved).
 *
 * <p>Thread-safe.
 */
public final class JvmStaticLoader implements ExecutableLoader {
    private static final Set<String> FORMATS = Set.of(JvmStaticFormat.FORMAT);
    private final ConcurrentHashMap<String, KernelLibrary> libraries = new ConcurrentHashMap<>();

    /**
     * A loader holding {@code initial}.
     *
     * @throws StatusException ALREADY_EXISTS if two libraries have the same name
     */
    public JvmStaticLoader(List<? extends KernelLibrary> initial) {
        initial.forEach(this::add);
    }

    @Override
    public Set<String> formats() {
        return FORMATS;
    }

    /**
     * Adds {@code library} under its name.
     *
     * @throws StatusException ALREADY_EXISTS if another library has that name
     */
    public void add(KernelLibrary library) {
        KernelLibrary previous = libraries.putIfAbsent(library.name(), library);
        if (previous != null && previous != library) {
            throw new StatusException(StatusCode.ALREADY_EXISTS, "kernel library '" + library.name()
                    + "' is already registered by " + previous);
        }
    }

    /** Removes {@code library} if it is the one registered under its name. */
    public void remove(KernelLibrary library) {
        libraries.remove(library.name(), library);
    }

    /**
     * The library named {@code name}.
     *
     * @throws StatusException NOT_FOUND naming the library and the ones available
     */
    public KernelLibrary find(String name) {
        KernelLibrary library = libraries.get(name);
        if (library == null) {
            throw new StatusException(StatusCode.NOT_FOUND, "kernel library '" + name
                    + "' is not installed (available: " + libraries.keySet() + ")");
        }
        return library;
    }

    /**
     * @throws StatusException INVALID_ARGUMENT for malformed data or executable constants (jvm-static
     *     executables take none); NOT_FOUND for a library that is not installed or a function it
     *     lacks
     */
    @Override
    public KernelExecutable load(ExecutableParams params, LoaderContext context) {
        if (params.constants() != null && params.constants().length != 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "executable cache '" + context.cacheIdentifier()
                    + "': " + params.constants().length + " executable constants given, but jvm-static executables"
                    + " take none");
        }
        JvmStaticFormat.Descriptor descriptor = JvmStaticFormat.parse(params.data());
        return resolve(descriptor, find(descriptor.library()));
    }

    /**
     * The functions {@code descriptor} selects from {@code library} (all of them, in library order,
     * when it selects none), as an executable.
     *
     * @throws StatusException NOT_FOUND naming a selected function the library lacks,
     *     INVALID_ARGUMENT if a function is selected twice
     */
    private static KernelExecutable resolve(JvmStaticFormat.Descriptor descriptor, KernelLibrary library) {
        String description = "jvm-static executable of library '" + library.name() + "'";
        List<KernelFunction> all = library.functions();
        if (descriptor.functions().isEmpty()) {
            return KernelExecutable.of(JvmStaticFormat.FORMAT, description, all, null);
        }
        Map<String, KernelFunction> byName = new HashMap<>();
        for (KernelFunction function : all) {
            byName.put(function.info().name(), function);
        }
        List<KernelFunction> selected = new ArrayList<>();
        for (String name : descriptor.functions()) {
            KernelFunction function = byName.remove(name);
            if (function == null) {
                throw new StatusException(all.stream().anyMatch(f -> f.info().name().equals(name))
                        ? StatusCode.INVALID_ARGUMENT : StatusCode.NOT_FOUND, "jvm-static: function '" + name
                        + "' is selected twice or not exported by kernel library '" + library.name() + "'");
            }
            selected.add(function);
        }
        return KernelExecutable.of(JvmStaticFormat.FORMAT, description, selected, null);
    }

    @Override
    public String toString() {
        return "jvm-static loader " + libraries.keySet();
    }
}
