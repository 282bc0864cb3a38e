package dev.ortho.modules.hal.internal;

import dev.ortho.hal.Buffer;
import dev.ortho.hal.Resource;
import dev.ortho.modules.hal.HalTypes;
import dev.ortho.vm.AbstractRefObject;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.RefType;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A VM ref to a HAL object: one Java class for every {@code hal.*} ref type, carrying the type,
 * the HAL object and the owner that keeps it alive.
 *
 * <p>Ownership: the ref holds one reference on {@code owner} (the object itself for HAL
 * resources, the device for an allocator, the backing {@code vm.buffer} for a memory file) and
 * gives it back when its own last VM reference is released. A {@code hal.buffer_view} ref may also
 * hold one count on the {@code hal.buffer} ref of its view's buffer ({@link #viewBufferRef}).
 * Thread-safe.
 */
public final class HalRef extends AbstractRefObject {
    private static final VarHandle BUFFER_REF;

    static {
        try {
            BUFFER_REF = MethodHandles.lookup().findVarHandle(HalRef.class, "bufferRef", HalRef.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final RefType type;
    private final Object target;
    /** The owner as the one of the two kinds it is (or neither): destroy makes no type checks. */
    private final Resource ownerResource;
    private final RefObject ownerRef;
    /**
     * {@code hal.buffer_view} refs only: the {@code hal.buffer} ref {@code buffer_view.buffer}
     * returns, holding one count (null until first needed). Accessed through {@link #BUFFER_REF}.
     */
    @SuppressWarnings("unused")
    private volatile HalRef bufferRef;

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

    /**
     * For a {@code hal.buffer_view} ref whose view is over {@code buffer}: the one
     * {@code hal.buffer} ref of that buffer this view ref hands out (borrowed; retain it to keep
     * it), made on the first call unless {@link #setViewBufferRef} set it. IREE's
     * {@code buffer_view.buffer} returns the view's buffer object itself, so every call on one view
     * gives the same ref ({@code vm.cmp.eq.ref} holds between them); making a new ref per call
     * also cost an allocation and a count on the buffer.
     */
    HalRef viewBufferRef(Buffer buffer) {
        HalRef ref = bufferRef;
        if (ref != null) {
            return ref;
        }
        HalRef made = HalRef.retain(HalTypes.BUFFER, buffer);
        HalRef raced = (HalRef) BUFFER_REF.compareAndExchange(this, null, made);
        if (raced != null) {
            made.release();
            return raced;
        }
        return made;
    }

    /**
     * Makes {@code ref} (a {@code hal.buffer} ref of this new view's whole buffer, as
     * {@code buffer_view.create} got it) the one {@link #viewBufferRef} returns, retaining it:
     * {@code buffer_view.buffer(buffer_view.create(b, …))} is then {@code b}, as in IREE. Only
     * before this ref is shared.
     */
    void setViewBufferRef(HalRef ref) {
        ref.retain();
        bufferRef = ref;
    }

    @Override
    protected void destroy() {
        HalRef viewed = bufferRef;
        if (viewed != null) {
            bufferRef = null;
            viewed.release();
        }
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
