package dev.ortho.vm;

import static dev.ortho.base.MessageText.printable;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.util.Objects;

/**
 * A reference type of the VM, identified by its full name ({@code vm.buffer}, {@code hal.buffer},
 * ...), the Java analogue of IREE's {@code iree_vm_ref_type_descriptor_t}.
 *
 * <p>Types are immutable values: two {@code RefType}s are equal when their names are equal, so a
 * bundle may declare its types as constants and register them with every {@link Instance} it
 * serves. {@link #ANY} ({@code ?}) accepts every type; a <em>placeholder</em> type stands for a
 * name that no bundle registered, so reflection-only tools can load modules that mention it (a
 * placeholder accepts nothing but null). Thread-safe.
 */
public final class RefType {
    /** {@code ?}: accepts a ref of any type. */
    public static final RefType ANY = new RefType("?", RefObject.class, false);
    /** {@code vm.buffer}: {@link VmBuffer}. */
    public static final RefType VM_BUFFER = new RefType("vm.buffer", VmBuffer.class, false);
    /** {@code vm.list}: {@link VmList}. */
    public static final RefType VM_LIST = new RefType("vm.list", VmList.class, false);

    private final String name;
    private final Class<? extends RefObject> javaClass;
    private final boolean placeholder;

    private RefType(String name, Class<? extends RefObject> javaClass, boolean placeholder) {
        this.name = name;
        this.javaClass = javaClass;
        this.placeholder = placeholder;
    }

    /**
     * Declares a type named {@code name} whose objects are instances of {@code javaClass}.
     *
     * @throws StatusException INVALID_ARGUMENT if the name is empty, is {@code ?}, or contains
     *     whitespace
     */
    public static RefType of(String name, Class<? extends RefObject> javaClass) {
        checkName(name);
        if (name.equals("?")) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "ref type name '?' is reserved");
        }
        return new RefType(name, Objects.requireNonNull(javaClass, "javaClass"), false);
    }

    /** A placeholder for an unregistered type {@code name} (reflection-only loading). */
    static RefType placeholder(String name) {
        checkName(name);
        return new RefType(name, RefObject.class, true);
    }

    private static void checkName(String name) {
        if (name == null || name.isEmpty() || name.chars().anyMatch(Character::isWhitespace)) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "invalid ref type name '" + printable(name) + "'");
        }
    }

    /** Full type name, e.g. {@code hal.buffer}. */
    public String name() {
        return name;
    }

    /** The Java class whose instances carry this type. */
    public Class<? extends RefObject> javaClass() {
        return javaClass;
    }

    /** True for {@link #ANY}. */
    public boolean isAny() {
        return this == ANY;
    }

    /** True if this type stands for a name nobody registered. */
    public boolean isPlaceholder() {
        return placeholder;
    }

    /**
     * True if a slot of this type may hold {@code ref}: null always, any non-null ref if this is
     * {@link #ANY}, otherwise a ref whose type equals this one.
     */
    public boolean accepts(RefObject ref) {
        if (ref == null || this == ANY) {
            return true;
        }
        RefType other = ref.refType();
        return other == this || (!placeholder && other.name.equals(name));
    }

    /**
     * Returns {@code ref} if {@link #accepts(RefObject) accepted}, for checked stores.
     *
     * @throws StatusException INVALID_ARGUMENT naming both types otherwise
     */
    public <T extends RefObject> T check(T ref) {
        if (!accepts(ref)) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "ref type mismatch; expected "
                    + name + " but got " + ref.refType().name);
        }
        return ref;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RefType other && other.name.equals(name);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    @Override
    public String toString() {
        return placeholder ? "!vm.ref<" + name + ">(placeholder)" : "!vm.ref<" + name + ">";
    }
}
