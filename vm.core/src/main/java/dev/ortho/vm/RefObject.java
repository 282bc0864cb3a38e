package dev.ortho.vm;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * An object that VM code can hold in a ref register, list or variant: typed and reference counted
 * (IREE's {@code iree_vm_ref_t} target).
 *
 * <p>Ownership: whoever holds a reference owns one count and gives it up with {@link #release()};
 * {@link #retain()} adds one. When the count drops to zero the object frees its resources (e.g.
 * off-heap memory); using it afterwards is an error. Slot operations follow IREE's three modes:
 * <em>assign</em> copies the reference without retaining (a borrow), <em>retain</em> retains and
 * copies, <em>move</em> transfers the count and clears the source slot. The static helpers here
 * accept null, as IREE's ref functions do.
 *
 * <p>Implementations must make {@code retain}/{@code release} thread-safe; most extend
 * {@link AbstractRefObject}. Bundles that expose other objects (HAL buffers, fences) to the VM
 * implement this interface, usually with a thin wrapper.
 */
@ConsumerType
public interface RefObject {
    /** The type of this object; constant for its lifetime. */
    RefType refType();

    /** Adds one reference. */
    void retain();

    /** Drops one reference; the last release destroys the object. */
    void release();

    /** Retains {@code ref} if non-null and returns it. */
    static <T extends RefObject> T retain(T ref) {
        // Most refs extend AbstractRefObject, whose retain is final: a class check and a direct,
        // inlinable call instead of an interface call that sees several classes (HAL refs,
        // vm.buffers, lists) at every call site of the interpreter and the call buffers.
        if (ref instanceof AbstractRefObject counted) {
            counted.retain();
        } else if (ref != null) {
            ref.retain();
        }
        return ref;
    }

    /** Releases {@code ref} if non-null. */
    static void release(RefObject ref) {
        if (ref instanceof AbstractRefObject counted) { // see retain
            counted.release();
        } else if (ref != null) {
            ref.release();
        }
    }
}
