package dev.ortho.hal.cpu.internal.sync;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.AllocaFlags;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.Pool;
import dev.ortho.hal.PoolCapabilities;
import dev.ortho.hal.PoolStatistics;
import dev.ortho.hal.cpu.internal.heap.HeapAllocator;
import dev.ortho.hal.cpu.internal.heap.HeapBuffer;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A memory pool of a {@code local-sync} device. Every queue operation of that device has finished
 * before its call returns, so memory given back (dealloca, or the last release of a pooled
 * buffer) is never still in use: reuse is always safe and needs neither frontiers nor waits.
 *
 * <p>Two flavours: a <em>caching</em> pool (created by {@link Device#createPool}) keeps freed
 * blocks and hands them to later allocas of a fitting size (best fit, at most twice the request),
 * freeing idle blocks when the quota needs room and on {@link #trim()}; a <em>pass-through</em>
 * pool (the device's default pool, unlimited) returns freed memory to the system at once, so
 * queue allocas without a pool behave exactly as plain allocations.
 *
 * <p>Quota: committed bytes never exceed it. Nothing can return memory while a synchronous alloca
 * runs on its own thread, so an alloca that does not fit even after the idle blocks are freed
 * fails with RESOURCE_EXHAUSTED (counted as over budget) instead of waiting.
 *
 * <p>{@link AllocaFlags#INDETERMINATE_LIFETIME}: dealloca of such a buffer is a barrier; its
 * memory comes back at its last release.
 *
 * <p>Lifetime: reference counted; the last release frees the idle blocks, blocks in use are freed
 * when their buffers give them back. Thread-safe: lists and counters are guarded by this pool's
 * monitor, never held while memory is allocated or freed.
 */
final class SyncPool implements Pool {
    /** A committed allocation of the pool. */
    static final class Block {
        final SyncPool pool;
        final HeapBuffer storage;
        final MemorySegment memory;
        final long size;
        /** Set at commit from the alloca's flags. */
        volatile boolean indeterminate;

        Block(SyncPool pool, HeapBuffer storage) {
            this.pool = pool;
            this.storage = storage;
            this.memory = storage.range("pool block", 0, HeapBuffer.WHOLE_BUFFER);
            this.size = memory.byteSize();
        }
    }

    private final String name;
    private final Device device;
    private final HeapAllocator allocator;
    private final long quota;
    private final boolean caching;
    private final PoolCapabilities capabilities;
    private final AtomicInteger references = new AtomicInteger(1);
    private final List<Block> free = new ArrayList<>();
    private long committed;
    private long freeBytes;
    private long peak;
    private long reservations;
    private long fresh;
    private long reused;
    private long overBudget;
    private boolean closed;

    /**
     * @param name names the pool in messages
     * @param device the device that hands it out
     * @param allocator where blocks come from
     * @param params the bits of the memory the pool serves (already checked)
     * @param quota most bytes committed at once ({@code Long.MAX_VALUE}: unlimited)
     * @param caching whether freed blocks are kept for reuse
     */
    SyncPool(String name, Device device, HeapAllocator allocator, BufferParams params, long quota, boolean caching) {
        this.name = name;
        this.device = device;
        this.allocator = allocator;
        this.quota = quota;
        this.caching = caching;
        this.capabilities = new PoolCapabilities(allocator.memoryTypeOf(params), allocator.usageOf(params), 0, quota,
                HeapAllocator.MIN_ALIGNMENT, quota, false);
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public PoolCapabilities capabilities() {
        return capabilities;
    }

    /** {@code waitsAvoided} counts every reuse (none ever waits); {@code waitsInserted} is always 0. */
    @Override
    public synchronized PoolStatistics statistics() {
        return new PoolStatistics(committed - freeBytes, committed, peak, reservations, fresh, reused, 0, overBudget);
    }

    /**
     * Binds {@code target} (an uncommitted transient) to a block: a fitting idle one, else new
     * memory within the quota.
     *
     * @throws StatusException RESOURCE_EXHAUSTED naming the pool, the request and the quota if it
     *     does not fit, or the system has no memory; FAILED_PRECONDITION if the pool was released
     */
    void commit(HeapBuffer target, long alignment, long flags) {
        long size = target.byteLength();
        long align = Math.max(HeapAllocator.MIN_ALIGNMENT, alignment);
        Block block;
        List<Block> trimmed = new ArrayList<>(0);
        StatusException overflow = null;
        synchronized (this) {
            checkOpenLocked("queueAlloca");
            if (size > quota) {
                throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, "pool '" + name + "': alloca of " + size
                        + " bytes exceeds the pool quota of " + quota + " bytes");
            }
            block = takeFree(size, align);
            if (block == null) {
                for (int i = free.size() - 1; i >= 0 && committed + size > quota; i--) {
                    Block idle = free.remove(i);
                    committed -= idle.size;
                    freeBytes -= idle.size;
                    trimmed.add(idle);
                }
                if (committed + size > quota) {
                    overBudget++;
                    overflow = new StatusException(StatusCode.RESOURCE_EXHAUSTED, "pool '" + name + "': alloca of "
                            + size + " bytes does not fit: " + committed + " of its quota of " + quota
                            + " bytes are in use (a synchronous device cannot wait for them)");
                } else {
                    committed += size; // reserved for the block allocated below
                    peak = Math.max(peak, committed);
                }
            } else {
                reservations++;
                reused++;
            }
        }
        trimmed.forEach(idle -> idle.storage.release());
        if (overflow != null) {
            throw overflow;
        }
        if (block == null) {
            try {
                block = new Block(this, allocator.allocate(new BufferParams(0, 0, 0, 0, align), size, false));
            } catch (StatusException e) {
                synchronized (this) {
                    committed -= size;
                }
                throw e;
            }
            synchronized (this) {
                reservations++;
                fresh++;
            }
        }
        Block bound = block;
        bound.indeterminate = (flags & AllocaFlags.INDETERMINATE_LIFETIME) != 0;
        target.commit(bound.memory.asSlice(0, size), () -> giveBack(bound), bound);
    }

    private Block takeFree(long size, long alignment) {
        int best = -1;
        for (int i = 0; i < free.size(); i++) {
            Block b = free.get(i);
            if (b.size < size || b.size > 2 * Math.max(size, 1) || b.memory.address() % alignment != 0) {
                continue;
            }
            if (best < 0 || b.size < free.get(best).size) {
                best = i;
            }
        }
        if (best < 0) {
            return null;
        }
        Block taken = free.remove(best);
        freeBytes -= taken.size;
        return taken;
    }

    /**
     * Queue dealloca of {@code buffer}: gives its memory back now unless it was allocated with an
     * indeterminate lifetime; buffers that are not queue-allocated are left alone (a barrier).
     */
    static void dealloca(HeapBuffer buffer) {
        if (buffer.commitTag() instanceof Block block && block.indeterminate) {
            return;
        }
        if (buffer.isQueueAllocated() || buffer.commitTag() instanceof Block) {
            buffer.decommit();
        }
    }

    /** The buffer's free action: keep the block for reuse (caching, open) or free it. */
    private void giveBack(Block block) {
        boolean keep;
        synchronized (this) {
            keep = caching && !closed;
            if (keep) {
                free.add(block);
                freeBytes += block.size;
            } else {
                committed -= block.size;
            }
        }
        if (!keep) {
            block.storage.release();
        }
    }

    @Override
    public void trim() {
        List<Block> idle;
        synchronized (this) {
            checkOpenLocked("trim");
            idle = new ArrayList<>(free);
            free.clear();
            committed -= freeBytes;
            freeBytes = 0;
        }
        idle.forEach(b -> b.storage.release());
    }

    /** @throws StatusException FAILED_PRECONDITION naming {@code call} if the pool was released */
    synchronized void checkOpen(String call) {
        checkOpenLocked(call);
    }

    private void checkOpenLocked(String call) {
        if (closed) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, call + ": pool '" + name
                    + "' is used after its last release");
        }
    }

    @Override
    public void retain() {
        int current;
        do {
            current = references.get();
            if (current <= 0) {
                throw new StatusException(StatusCode.FAILED_PRECONDITION, "retain of pool '" + name
                        + "' after its last release");
            }
        } while (!references.compareAndSet(current, current + 1));
    }

    @Override
    public void release() {
        int remaining = references.decrementAndGet();
        if (remaining == 0) {
            shutdown();
        } else if (remaining < 0) {
            references.incrementAndGet();
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "pool '" + name
                    + "' released more times than retained");
        }
    }

    /** Frees the idle blocks and stops caching; blocks in use are freed when given back. */
    void shutdown() {
        List<Block> idle;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            idle = new ArrayList<>(free);
            free.clear();
            committed -= freeBytes;
            freeBytes = 0;
        }
        idle.forEach(b -> b.storage.release());
    }

    @Override
    public String toString() {
        return "pool '" + name + "'";
    }
}
