package dev.ortho.hal.spi;

import dev.ortho.hal.Buffer;

/**
 * The base of a driver's buffer that is either a root allocation or a subspan of one: it holds
 * the root, the span ({@link #byteOffset()}, {@link #byteLength()}) and the allocation size, and
 * the reference count. A subspan retains its root (the driver's {@code subspan} retains it
 * before constructing the span) and releases it at its own last release; the root's last release
 * calls {@link #rootReleased()}, where the driver frees the allocation.
 *
 * @param <B> the driver's buffer class
 */
public abstract class RootedBuffer<B extends RootedBuffer<B>> implements Buffer {
    private final B root;
    private final long byteOffset;
    private final long byteLength;
    private final long allocationSize;
    private final RefCount references = new RefCount();

    /** A root over all of an allocation of {@code allocationSize} bytes. */
    @SuppressWarnings("unchecked") // B is this class's own type parameter
    protected RootedBuffer(long allocationSize) {
        this.root = (B) this;
        this.byteOffset = 0;
        this.byteLength = allocationSize;
        this.allocationSize = allocationSize;
    }

    /**
     * A span {@code [byteOffset, byteOffset + byteLength)} of {@code root} (offsets are the
     * root's), which the caller has checked and retained for it.
     */
    protected RootedBuffer(B root, long byteOffset, long byteLength) {
        this.root = root;
        this.byteOffset = byteOffset;
        this.byteLength = byteLength;
        this.allocationSize = root.allocationSize();
    }

    /** The root allocation (this buffer itself if it is the root). */
    protected final B root() {
        return root;
    }

    /** Whether this is the root allocation rather than a subspan. */
    protected final boolean isRoot() {
        return root == this;
    }

    @Override
    public final Buffer allocatedBuffer() {
        return root;
    }

    @Override
    public final long allocationSize() {
        return allocationSize;
    }

    @Override
    public final long byteOffset() {
        return byteOffset;
    }

    @Override
    public final long byteLength() {
        return byteLength;
    }

    @Override
    public final void retain() {
        references.retain();
    }

    /**
     * Drops a reference; at the last one a subspan releases its root and a root calls
     * {@link #rootReleased()}. Releasing more often than retaining fails as
     * {@link RefCount#release} says.
     */
    @Override
    public final void release() {
        if (!references.release(this)) {
            return;
        }
        if (root != this) {
            root.release();
        } else {
            rootReleased();
        }
    }

    /** The root's last reference was released: free the allocation. */
    protected abstract void rootReleased();
}
