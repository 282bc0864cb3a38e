package dev.ortho.hal.cpu.internal.executable;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.cpu.internal.vmvx.VmvxLoader;
import dev.ortho.hal.cpu.kernel.KernelLibrary;
import dev.ortho.vm.Instance;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a CPU driver's executable caches load with: the kernel libraries {@code jvm-static}
 * executables resolve against, by name, and the {@link VmvxLoader} for
 * {@code vmvx-bytecode-fb} executables. Plain Java fills it once; the OSGi component adds and
 * removes libraries as services come and go (executables already prepared keep the functions
 * they resolved). Thread-safe.
 */
public final class KernelLibraryRegistry {
    private final ConcurrentHashMap<String, KernelLibrary> libraries = new ConcurrentHashMap<>();
    private final VmvxLoader vmvx;

    /**
     * A registry holding {@code initial} and a VMVX loader with its own VM instance and no
     * instruction extensions (VMVX executables that need ExtF32/ExtF64 then fail to prepare with
     * UNIMPLEMENTED; use the other constructor to provide them).
     */
    public KernelLibraryRegistry(List<? extends KernelLibrary> initial) {
        this(initial, new VmvxLoader(new Instance(), List::of, List.of()));
    }

    /** A registry holding {@code initial} that prepares VMVX executables with {@code vmvx}. */
    public KernelLibraryRegistry(List<? extends KernelLibrary> initial, VmvxLoader vmvx) {
        this.vmvx = Objects.requireNonNull(vmvx, "vmvx");
        initial.forEach(this::add);
    }

    /** The loader for {@code vmvx-bytecode-fb} executables. */
    public VmvxLoader vmvx() {
        return vmvx;
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
