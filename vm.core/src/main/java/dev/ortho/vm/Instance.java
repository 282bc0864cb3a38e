package dev.ortho.vm;

import static dev.ortho.base.MessageText.printable;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The root of a VM: the registry of ref types that modules may name (IREE's
 * {@code iree_vm_instance_t}). {@code vm.buffer} and {@code vm.list} are registered at
 * construction; other bundles register theirs ({@code hal.buffer}, …) before loading modules that
 * use them.
 *
 * <p>Registration is counted like IREE's: registering an equal type again increments a count and
 * each {@link #unregisterType} decrements it; the type disappears at zero. Thread-safe.
 */
public final class Instance {
    private record Entry(RefType type, int registrations) { }

    private final Map<String, Entry> types = new HashMap<>();
    private final java.util.concurrent.atomic.AtomicInteger nextContextId = new java.util.concurrent.atomic.AtomicInteger(1);

    /** Creates an instance with the built-in types {@code vm.buffer} and {@code vm.list}. */
    public Instance() {
        registerType(RefType.VM_BUFFER);
        registerType(RefType.VM_LIST);
    }

    /**
     * Registers {@code type} (again, if already registered with the same Java class).
     *
     * @throws StatusException ALREADY_EXISTS if a different Java class is registered under the
     *     same name, INVALID_ARGUMENT for placeholders and {@link RefType#ANY}
     */
    public synchronized void registerType(RefType type) {
        Objects.requireNonNull(type, "type");
        if (type.isAny() || type.isPlaceholder()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "cannot register " + type);
        }
        Entry e = types.get(type.name());
        if (e != null && e.type.javaClass() != type.javaClass()) {
            throw new StatusException(StatusCode.ALREADY_EXISTS, "type '" + type.name()
                    + "' already registered with class " + e.type.javaClass().getName());
        }
        types.put(type.name(), new Entry(e == null ? type : e.type, e == null ? 1 : e.registrations + 1));
    }

    /**
     * Drops one registration of {@code type}.
     *
     * @throws StatusException NOT_FOUND if it is not registered
     */
    public synchronized void unregisterType(RefType type) {
        Entry e = types.get(type.name());
        if (e == null) {
            throw new StatusException(StatusCode.NOT_FOUND, "type '" + type.name() + "' not registered");
        }
        if (e.registrations == 1) {
            types.remove(type.name());
        } else {
            types.put(type.name(), new Entry(e.type, e.registrations - 1));
        }
    }

    /** The registered type named {@code name} ({@link RefType#ANY} for {@code ?}), or null. */
    public synchronized RefType lookupType(String name) {
        if ("?".equals(name)) {
            return RefType.ANY;
        }
        Entry e = types.get(name);
        return e == null ? null : e.type;
    }

    /**
     * Resolves a type name a module refers to. If it is not registered, returns a placeholder
     * when {@code allowPlaceholder} (reflection-only loading: the module can be inspected but
     * no ref will ever satisfy the placeholder) and fails otherwise.
     *
     * @throws StatusException NOT_FOUND "type 'x' not registered with the instance"
     */
    public RefType resolveType(String name, boolean allowPlaceholder) {
        RefType t = lookupType(name);
        if (t != null) {
            return t;
        }
        if (allowPlaceholder) {
            return RefType.placeholder(name);
        }
        throw new StatusException(StatusCode.NOT_FOUND,
                "type '" + printable(name) + "' not registered with the instance");
    }

    /** Allocates an id for a new context of this instance. */
    int nextContextId() {
        return nextContextId.getAndIncrement();
    }

    /** A snapshot of the registered types. */
    public synchronized List<RefType> types() {
        List<RefType> out = new ArrayList<>();
        for (Entry e : types.values()) {
            out.add(e.type);
        }
        out.sort((a, b) -> a.name().compareTo(b.name()));
        return out;
    }
}
