package dev.ortho.vm;

import java.util.Map;
import java.util.Objects;

/**
 * A function of a module (IREE's {@code iree_vm_function_t} plus its reflection data): module,
 * linkage, ordinal within that linkage, name, calling convention and reflection attributes.
 *
 * <p>Module implementations create one instance per function and return it from lookups, so
 * resolving and calling never allocate. Imports are named fully ({@code module.function}); exports
 * and internal functions by their local name. Immutable and thread-safe.
 */
public final class Function {
    private final Module module;
    private final Linkage linkage;
    private final int ordinal;
    private final String name;
    private final CallingConvention cconv;
    private final Map<String, String> attrs;

    /**
     * Creates a function descriptor.
     *
     * @param module owning module
     * @param linkage linkage
     * @param ordinal index within the module's functions of that linkage
     * @param name local name (exports) or full name (imports)
     * @param cconv calling convention ({@link CallingConvention#VOID} if unknown)
     * @param attrs reflection attributes (copied)
     */
    public Function(Module module, Linkage linkage, int ordinal, String name, CallingConvention cconv,
                    Map<String, String> attrs) {
        this.module = Objects.requireNonNull(module, "module");
        this.linkage = Objects.requireNonNull(linkage, "linkage");
        this.ordinal = ordinal;
        this.name = Objects.requireNonNull(name, "name");
        this.cconv = Objects.requireNonNull(cconv, "cconv");
        this.attrs = Map.copyOf(attrs);
    }

    /** The module that owns this function. */
    public Module module() {
        return module;
    }

    /** The linkage. */
    public Linkage linkage() {
        return linkage;
    }

    /** Ordinal within the module's functions of the same linkage kind. */
    public int ordinal() {
        return ordinal;
    }

    /** Local name (full {@code module.function} name for imports). */
    public String name() {
        return name;
    }

    /** The calling convention. */
    public CallingConvention cconv() {
        return cconv;
    }

    /** Reflection attributes (e.g. {@code iree.abi.declaration}); empty if none. */
    public Map<String, String> attrs() {
        return attrs;
    }

    /** The attribute {@code key}, or the empty string if absent (as IREE's lookup_attr_by_name). */
    public String attr(String key) {
        return attrs.getOrDefault(key, "");
    }

    /** {@code module.name} for exports, the full name for imports. */
    public String qualifiedName() {
        return linkage.isImport() ? name : module.name() + "." + name;
    }

    @Override
    public String toString() {
        return qualifiedName() + " " + cconv;
    }
}
