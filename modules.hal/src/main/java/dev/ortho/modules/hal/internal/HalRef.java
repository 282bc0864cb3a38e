package dev.ortho.modules.hal.internal;

import dev.ortho.hal.Resource;
import dev.ortho.vm.AbstractRefObject;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.RefType;

/**
 * A VM ref to a HAL object: one Java class for every {@code hal.*} ref type, carrying the type,
 * the HAL object and the owner that keeps it alive.
 *
 * <p>Ownership: the ref holds one reference on {@code owner} (the object itself for HAL
 * resources, the device for an allocator, the backing {@code vm.buffer} for a memory file) and
 * gives it back when its own last VM reference is released. Thread-safe.
 */
public final class HalRef extends AbstractRefObject {
    private final RefType type;
    private final Object target;
    /** The owner as the one of the two kinds it is (or neither): destroy makes no type checks. */
    private final Resource ownerResource;
    private final RefObject ownerRef;

    private HalRef(RefType type, Object target, Object owner) {
        this.type = type;
        this.target = target;
        this.ownerResource = owner instanceof Resource r ? r : null;
        this.ownerRef = ownerResource == null && owner instanceof RefObject r ? r : null;
    }

    /**
     * A ref of {@code type} to {@code target} that adopts the caller's reference on
     * {@code owner} (a {@link Resource} or {@link RefObject}): nothing is retained, the ref
     * releases it once.
     */
    public static HalRef adopt(RefType type, Object target, Object owner) {
        return new HalRef(type, target, owner);
    }

    /**
     * A ref of {@code type} to {@code resource}, retaining it (the caller keeps its own reference);
     * null for null, as IREE's {@code *_retain_ref}.
     */
    public static HalRef retain(RefType type, Resource resource) {
        if (resource == null) {
            return null;
        }
        resource.retain();
        return new HalRef(type, resource, resource);
    }

    /** A ref of {@code type} to {@code target} that retains {@code owner} (Resource or RefObject). */
    public static HalRef retain(RefType type, Object target, Object owner) {
        if (owner instanceof Resource r) {
            r.retain();
        } else if (owner instanceof RefObject r) {
            r.retain();
        }
        return new HalRef(type, target, owner);
    }

    @Override
    public RefType refType() {
        return type;
    }

    /** The HAL object (borrowed: valid while this ref is). */
    public Object target() {
        return target;
    }

    @Override
    protected void destroy() {
        if (ownerResource != null) {
            ownerResource.release();
        } else if (ownerRef != null) {
            ownerRef.release();
        }
    }

    @Override
    public String toString() {
        return type.name() + "<" + target + ">";
    }
}
