package dev.ortho.hal.cpu.internal.executable;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.cpu.kernel.KernelLibrary;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The kernel libraries a CPU driver resolves {@code jvm-static} executables against, by name.
 * Plain Java fills it once; the OSGi component adds and removes libraries as services come and
 * go (executables already prepared keep the functions they resolved). Thread-safe.
 */
public final class KernelLibraryRegistry {
    private final ConcurrentHashMap<String, KernelLibrary> libraries = new ConcurrentHashMap<>();

    /** A registry holding {@code initial}. */
    public KernelLibraryRegistry(List<? extends KernelLibrary> initial) {
        initial.forEach(this::add);
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
}
