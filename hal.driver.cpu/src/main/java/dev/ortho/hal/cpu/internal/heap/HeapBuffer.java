package dev.ortho.hal.cpu.internal.heap;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.MappedMemory;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.spi.BufferAccess;
import dev.ortho.hal.spi.RootedBuffer;
import java.lang.foreign.MemorySegment;

/**
 * A buffer over host memory: either a root owning an off-heap allocation (or an imported
 * segment) or a subspan retaining its root. The root's memory is freed by its {@code free}
 * action exactly once: on its last release, or earlier by {@link #decommit()} (queue dealloca).
 *
 * <p>A <em>transient</em> root (from an asynchronous queue alloca) exists before its memory: its
 * size and bits are fixed at the call, and the memory is bound by {@link #commit} when the alloca
 * executes. Until then range checks work ({@link #checkRange}) but memory access fails with
 * FAILED_PRECONDITION.
 *
 * <p>Thread-safe: the reference count is atomic and the freed flag volatile (set under the
 * root's monitor); the root's open-mapping count is guarded by the root's monitor (taken only to
 * map, unmap and free, never on device access); a transient's memory, free action and pool tag
 * are published once by {@link #commit} (volatile).
 */
public final class HeapBuffer extends RootedBuffer<HeapBuffer> {
    /** The root's memory; null on a transient root until {@link #commit}, unused on subspans. */
    private volatile MemorySegment memory;
    private final int memoryType;
    private final int allowedAccess;
    private final int allowedUsage;
    private final boolean queueAllocated;
    private volatile Runnable free;
    /** Opaque owner token set by {@link #commit} (the pool block a transient came from). */
    private volatile Object commitTag;
    /** Set once, never cleared (no compare-and-set needed): a plain volatile, no object per buffer. */
    private volatile boolean freed;
    /** Open mappings of this root; guarded by the root's monitor. */
    private int openMappings;
    /** Whether {@code free} ran; guarded by the root's monitor. */
    private boolean memoryFreed;

    /**
     * A root buffer over all of {@code memory}; {@code free} runs once when the memory is freed.
     * {@code queueAllocated} marks buffers from queue alloca, whose dealloca frees the memory.
     */
    HeapBuffer(MemorySegment memory, int memoryType, int allowedAccess, int allowedUsage, boolean queueAllocated,
            Runnable free) {
        super(memory.byteSize());
        this.memory = memory;
        this.memoryType = memoryType;
        this.allowedAccess = allowedAccess;
        this.allowedUsage = allowedUsage;
        this.queueAllocated = queueAllocated;
        this.free = free;
    }

    /**
     * A transient root of {@code size} bytes with no memory yet; {@link #commit} binds it. It is
     * queue-allocated: dealloca decommits it.
     */
    public HeapBuffer(long size, int memoryType, int allowedAccess, int allowedUsage) {
        super(size);
        this.memoryType = memoryType;
        this.allowedAccess = allowedAccess;
        this.allowedUsage = allowedUsage;
        this.queueAllocated = true;
    }

    /** A root of {@code size} bytes that never got memory (its queue alloca's wait failed). */
    private HeapBuffer(long size, int memoryType, int allowedAccess, int allowedUsage, boolean never) {
        super(size);
        this.memory = MemorySegment.NULL;
        this.memoryType = memoryType;
        this.allowedAccess = allowedAccess;
        this.allowedUsage = allowedUsage;
        this.queueAllocated = true;
        this.free = () -> { };
        this.freed = true;
        this.memoryFreed = true;
    }

    /**
     * A queue-allocated buffer that has no memory, returned by a queue alloca whose waits failed:
     * every access fails with FAILED_PRECONDITION, release frees nothing.
     */
    static HeapBuffer uncommitted(long size, int memoryType, int allowedAccess, int allowedUsage) {
        return new HeapBuffer(size, memoryType, allowedAccess, allowedUsage, true);
    }

    private HeapBuffer(HeapBuffer root, long byteOffset, long byteLength) {
        super(root, byteOffset, byteLength);
        this.memoryType = root.memoryType;
        this.allowedAccess = root.allowedAccess;
        this.allowedUsage = root.allowedUsage;
        this.queueAllocated = false;
        this.free = null;
    }

    /**
     * {@code buffer} as a heap buffer, for devices that execute on host memory.
     *
     * @throws StatusException INVALID_ARGUMENT naming {@code what} if it is null or not a heap buffer
     */
    public static HeapBuffer cast(Buffer buffer, String what) {
        if (buffer instanceof HeapBuffer heap) {
            return heap;
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " " + (buffer == null ? "is null"
                : buffer + " was not allocated by a local CPU device allocator"));
    }

    @Override
    public int memoryType() {
        return memoryType;
    }

    @Override
    public int allowedAccess() {
        return allowedAccess;
    }

    @Override
    public int allowedUsage() {
        return allowedUsage;
    }

    /** Whether this is a root allocated by queue alloca (dealloca frees it). */
    public boolean isQueueAllocated() {
        return queueAllocated;
    }

    @Override
    public Buffer subspan(long offset, long length) {
        long resolved = Ranges.resolve("subspan", offset, length, byteLength());
        if (offset == 0 && resolved == byteLength()) {
            retain(); // all of it: this buffer itself, as IREE's iree_hal_buffer_subspan (no new object)
            return this;
        }
        root().retain();
        return new HeapBuffer(root(), byteOffset() + offset, resolved);
    }

    /**
     * The memory of {@code [offset, offset + length)} of this buffer, for device-side access.
     *
     * @throws StatusException as {@link Ranges#resolve}; FAILED_PRECONDITION if the memory was
     *     freed by dealloca
     */
    public MemorySegment range(String what, long offset, long length) {
        long resolved = Ranges.resolve(what, offset, length, byteLength());
        return rootMemory(what).asSlice(byteOffset() + offset, resolved);
    }

    /**
     * All of the root allocation's memory, unsliced (so nothing is allocated): this buffer's byte
     * {@code i} is the root's byte {@link #byteOffset()}{@code + i}. The caller checks its range
     * first ({@link #checkRange}).
     *
     * @throws StatusException FAILED_PRECONDITION if the memory was freed by dealloca or is not
     *     committed yet
     */
    public MemorySegment rootMemory(String what) {
        MemorySegment rootMemory = root().memory; // volatile: pairs with the store in commit
        if (root().freed) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, what + " buffer " + this
                    + " has no memory: it was deallocated, or its queue alloca failed");
        }
        if (rootMemory == null) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, what + " buffer " + this
                    + " has no memory yet: its queue alloca has not executed");
        }
        return rootMemory;
    }

    /**
     * {@link #rootMemory} for hot paths: the root allocation's memory, or null where
     * {@code rootMemory} would fail (given up, or not committed yet), building no message.
     */
    public MemorySegment committedMemoryOrNull() {
        HeapBuffer root = root();
        MemorySegment rootMemory = root.memory; // volatile: pairs with the store in commit
        return rootMemory == null || root.freed ? null : rootMemory;
    }

    /**
     * Checks {@code [offset, offset + length)} (length may be {@link #WHOLE_BUFFER}) against this
     * buffer without touching its memory, so transient buffers can be recorded before they exist.
     *
     * @return the resolved length
     * @throws StatusException as {@link Ranges#resolve}
     */
    public long checkRange(String what, long offset, long length) {
        return Ranges.resolve(what, offset, length, byteLength());
    }

    /**
     * Binds a transient root to {@code committed} (exactly {@link #byteLength()} bytes); {@code
     * onFree} runs once when the memory is given up (dealloca, or last release, after the last
     * mapping closed), {@code tag} identifies the owner (see {@link #commitTag()}).
     *
     * @throws StatusException FAILED_PRECONDITION if this is not an uncommitted transient root
     */
    public void commit(MemorySegment committed, Runnable onFree, Object tag) {
        if (!isRoot() || free != null || memory != null) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "buffer " + this + " is not an uncommitted transient");
        }
        commitTag = tag;
        free = onFree;
        memory = committed; // volatile: publishes the tag and free action with the memory
    }

    /** Whether the root's memory is bound (always true except for transients before commit). */
    public boolean isCommitted() {
        return root().memory != null;
    }

    /** Whether the root's memory was given up (dealloca or last release). */
    public boolean isDecommitted() {
        return root().freed;
    }

    /** The owner token given to {@link #commit}, or null. */
    public Object commitTag() {
        return root().commitTag;
    }

    @Override
    public MappedMemory map(int mode, int access, long offset, long length) {
        BufferAccess.checkMapping("map", this, memoryType, allowedUsage, allowedAccess, mode, access);
        MemorySegment contents = range("map", offset, length);
        root().openMapping();
        retain(); // released by HeapMapping.close(): the buffer stays alive while mapped
        return new HeapMapping(this, MemoryAccess.has(access, MemoryAccess.WRITE) ? contents : contents.asReadOnly(),
                offset, access);
    }

    @Override
    public void read(long offset, MemorySegment target) {
        try (MappedMemory mapping = map(MemoryAccess.READ, offset, target.byteSize())) {
            MemorySegment.copy(mapping.contents(), 0, target, 0, target.byteSize());
        }
    }

    @Override
    public void write(long offset, MemorySegment source) {
        try (MappedMemory mapping = map(MemoryAccess.WRITE, offset, source.byteSize())) {
            MemorySegment.copy(source, 0, mapping.contents(), 0, source.byteSize());
        }
    }

    @Override
    public void fill(long offset, long length, int pattern, int patternLength) {
        long resolved = Ranges.resolve("fill", offset, length, byteLength());
        Ranges.checkPattern(offset, resolved, patternLength);
        try (MappedMemory mapping = map(MemoryAccess.WRITE, offset, resolved)) {
            Ranges.fill(mapping.contents(), pattern, patternLength);
        }
    }

    /**
     * Frees the root's memory now (queue dealloca): later accesses fail, the last release is a
     * no-op. If mappings are open the memory is freed when the last one closes, so no mapping
     * ever sees freed memory.
     */
    public void decommit() {
        root().decommitRoot();
    }

    private synchronized void decommitRoot() {
        freed = true;
        if (openMappings == 0 && !memoryFreed) {
            memoryFreed = true;
            Runnable action = free;
            if (action != null) { // null: a transient whose alloca never committed it
                action.run();
            }
        }
    }

    private synchronized void openMapping() {
        if (freed) { // re-checked under the monitor: a dealloca may have raced range()
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "map buffer " + this
                    + " has no memory: it was deallocated");
        }
        openMappings++;
    }

    /** Called by {@link HeapMapping#close()} on the buffer it mapped. */
    void closeMapping() {
        root().closeRootMapping();
    }

    private synchronized void closeRootMapping() {
        if (--openMappings == 0 && freed && !memoryFreed) {
            memoryFreed = true;
            Runnable action = free;
            if (action != null) {
                action.run();
            }
        }
    }

    /** The last release of the root frees its memory (unless dealloca did; see {@link #decommit()}). */
    @Override
    protected void rootReleased() {
        decommit();
    }

    @Override
    public String toString() {
        return "heap buffer [" + byteOffset() + ", " + (byteOffset() + byteLength()) + ") of " + allocationSize()
                + " bytes";
    }
}
