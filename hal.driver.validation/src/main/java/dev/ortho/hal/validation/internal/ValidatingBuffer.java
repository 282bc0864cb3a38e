package dev.ortho.hal.validation.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.hal.Allocator;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.MappedMemory;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryType;
import dev.ortho.hal.spi.ForwardingBuffer;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A buffer handed out by a {@link ValidatingDevice}: checks host access (mapping rules, ranges,
 * fill patterns) and use after the last release, then forwards. A subspan holds a reference on
 * its root wrapper, as the inner subspan holds one on the inner root, so the root stays usable
 * through {@link #allocatedBuffer()} while subspans live.
 *
 * <p>Also carries the queue-allocation state the device checks: whether the buffer came from
 * {@code queueAlloca} and whether {@code queueDealloca} was submitted for it. Thread-safe.
 */
final class ValidatingBuffer extends ForwardingBuffer {
    private static final long NO_MEMO = Long.MIN_VALUE;

    private final Liveness liveness = new Liveness();
    private final ValidatingBuffer root;
    private final boolean fromAlloca;
    private final AtomicBoolean deallocated = new AtomicBoolean();
    /** Allocated with AllocaFlags.INDETERMINATE_LIFETIME: dealloca is ignored (set before publication). */
    private volatile boolean indeterminate;
    /** (usage << 32) | compatibility of the last query, or NO_MEMO; volatile keeps 64-bit writes atomic. */
    private volatile long compatibilityMemo = NO_MEMO;

    ValidatingBuffer(ValidatingDevice owner, Buffer delegate, ValidatingBuffer root, boolean fromAlloca) {
        super(owner, delegate, root);
        this.root = root == null ? this : root;
        this.fromAlloca = fromAlloca;
        if (root != null) {
            root.liveness.retain("buffer.subspan", root); // pairs with the release in release()
        }
    }

    /** FAILED_PRECONDITION if released or (its root) deallocated. */
    void checkUsable(String call, String argument) {
        liveness.check(call, argument, this);
        if (root.deallocated.get()) {
            throw Checks.fail(StatusCode.FAILED_PRECONDITION, call, argument, this
                    + " is used after queueDealloca freed it");
        }
    }

    /**
     * The inner allocator's compatibility answer for this buffer and {@code usage}, remembered
     * for the last usage asked: the buffer's type, usage and size are immutable, so the answer
     * is too. The memo packs usage and answer into one long, so racing threads see either the
     * old or the new pair, never a mix.
     */
    int compatibility(Allocator allocator, int usage) {
        long memo = compatibilityMemo; // volatile read: the pair was published as one value
        if (memo != NO_MEMO && (int) (memo >>> 32) == usage) {
            return (int) memo;
        }
        int allowed = Checks.queryCompatibility(allocator, delegate(), usage);
        compatibilityMemo = ((long) usage << 32) | (allowed & 0xFFFFFFFFL);
        return allowed;
    }

    /** FAILED_PRECONDITION if the last reference was released. */
    void checkLive(String call, String argument) {
        liveness.check(call, argument, this);
    }

    boolean isFromAlloca() {
        return fromAlloca;
    }

    /** Whether this is a subspan of another buffer rather than an allocation of its own. */
    boolean isSubspan() {
        return root != this;
    }

    /** Records that the buffer was allocated with an indeterminate lifetime. */
    void markIndeterminate() {
        indeterminate = true;
    }

    /** Whether dealloca leaves the buffer's memory to its last release (and the buffer usable). */
    boolean isIndeterminate() {
        return indeterminate;
    }

    /** Marks a dealloca submitted; false if one was submitted before. */
    boolean markDeallocated() {
        return deallocated.compareAndSet(false, true);
    }

    /** Undoes {@link #markDeallocated()} when the inner device refused the dealloca. */
    void unmarkDeallocated() {
        deallocated.set(false);
    }

    @Override
    public Buffer allocatedBuffer() {
        liveness.check("buffer.allocatedBuffer", this);
        return super.allocatedBuffer();
    }

    @Override
    public long allocationSize() {
        liveness.check("buffer.allocationSize", this);
        return super.allocationSize();
    }

    @Override
    public long byteOffset() {
        liveness.check("buffer.byteOffset", this);
        return super.byteOffset();
    }

    @Override
    public long byteLength() {
        liveness.check("buffer.byteLength", this);
        return super.byteLength();
    }

    @Override
    public int memoryType() {
        liveness.check("buffer.memoryType", this);
        return super.memoryType();
    }

    @Override
    public int allowedAccess() {
        liveness.check("buffer.allowedAccess", this);
        return super.allowedAccess();
    }

    @Override
    public int allowedUsage() {
        liveness.check("buffer.allowedUsage", this);
        return super.allowedUsage();
    }

    @Override
    public Buffer subspan(long offset, long length) {
        liveness.check("buffer.subspan", this);
        Checks.range("buffer.subspan", "range", offset, length, delegate().byteLength());
        return super.subspan(offset, length);
    }

    @Override
    public MappedMemory map(int mode, int access, long offset, long length) {
        if (mode != MAPPING_MODE_SCOPED && mode != MAPPING_MODE_PERSISTENT) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, "buffer.map", "mode", "mode " + mode + " is neither "
                    + MAPPING_MODE_SCOPED + " (scoped) nor " + MAPPING_MODE_PERSISTENT + " (persistent)");
        }
        checkMap("buffer.map", mode, access, offset, length);
        return new ValidatingMapping(this, delegate().map(mode, access, offset, length));
    }

    @Override
    public MappedMemory map(int access, long offset, long length) {
        return map(MAPPING_MODE_SCOPED, access, offset, length);
    }

    @Override
    public void read(long offset, MemorySegment target) {
        Checks.requireNonNull(target, "buffer.read", "target");
        checkMap("buffer.read", MAPPING_MODE_SCOPED, MemoryAccess.READ, offset, target.byteSize());
        super.read(offset, target);
    }

    @Override
    public void write(long offset, MemorySegment source) {
        Checks.requireNonNull(source, "buffer.write", "source");
        checkMap("buffer.write", MAPPING_MODE_SCOPED, MemoryAccess.WRITE, offset, source.byteSize());
        super.write(offset, source);
    }

    @Override
    public void fill(long offset, long length, int pattern, int patternLength) {
        checkPatternLength("buffer.fill", patternLength);
        long resolved = Checks.range("buffer.fill", "range", offset, length, delegate().byteLength());
        Checks.alignment("buffer.fill", "range", offset, resolved, patternLength);
        checkMap("buffer.fill", MAPPING_MODE_SCOPED, MemoryAccess.WRITE, offset, resolved);
        super.fill(offset, length, pattern, patternLength);
    }

    /** Pattern lengths IREE fills with: 1, 2 or 4 bytes; INVALID_ARGUMENT otherwise. */
    static void checkPatternLength(String call, int patternLength) {
        if (patternLength != 1 && patternLength != 2 && patternLength != 4) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "patternLength", patternLength
                    + " is not one of 1, 2, 4");
        }
    }

    /** IREE's mapping rules: host-visible, the mode's mapping usage, READ/WRITE access allowed, range inside. */
    private void checkMap(String call, int mode, int access, long offset, long length) {
        checkUsable(call, "buffer");
        Buffer inner = delegate();
        if (!MemoryType.has(inner.memoryType(), MemoryType.HOST_VISIBLE)) {
            throw Checks.fail(StatusCode.PERMISSION_DENIED, call, "buffer", "memory type "
                    + MemoryType.format(inner.memoryType()) + " is not HOST_VISIBLE, so it cannot be mapped");
        }
        int usage = mode == MAPPING_MODE_PERSISTENT ? BufferUsage.MAPPING_PERSISTENT : BufferUsage.MAPPING_SCOPED;
        if ((inner.allowedUsage() & usage) == 0) {
            throw Checks.fail(StatusCode.PERMISSION_DENIED, call, "buffer", "usage "
                    + BufferUsage.format(inner.allowedUsage()) + " lacks " + BufferUsage.format(usage)
                    + ", which " + (mode == MAPPING_MODE_PERSISTENT ? "persistent" : "scoped") + " mapping needs");
        }
        Checks.access(call, "access", inner.allowedAccess(), access & ~MemoryAccess.ANY);
        Checks.range(call, "range", offset, length, inner.byteLength());
    }

    @Override
    public void retain() {
        liveness.retain("buffer.retain", this);
        super.retain();
    }

    @Override
    public void release() {
        boolean last = liveness.release("buffer.release", this);
        super.release();
        if (last && root != this) {
            root.releaseSubspanReference();
        }
    }

    /** Drops the reference a subspan held on this root (the inner subspan released the inner root). */
    private void releaseSubspanReference() {
        liveness.release("buffer.release (subspan)", this);
    }

    @Override
    public String toString() {
        return "buffer [" + delegate().byteOffset() + ", " + (delegate().byteOffset() + delegate().byteLength())
                + ") of " + delegate().allocationSize() + " bytes";
    }
}
