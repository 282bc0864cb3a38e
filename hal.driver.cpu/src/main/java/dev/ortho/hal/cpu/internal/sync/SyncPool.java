package dev.ortho.hal.cpu.internal.sync;

import dev.ortho.base.MemoryPool;
import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.AllocaFlags;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.cpu.internal.heap.BlockPool;
import dev.ortho.hal.cpu.internal.heap.HeapAllocator;
import dev.ortho.hal.cpu.internal.heap.HeapBuffer;
import java.util.ArrayList;
import java.util.List;

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
 * <p>{@link dev.ortho.hal.AllocaFlags#INDETERMINATE_LIFETIME}: dealloca of such a buffer is a barrier; its
 * memory comes back at its last release.
 *
 * <p>Lifetime: reference counted; the last release frees the idle blocks, blocks in use are freed
 * when their buffers give them back. Thread-safe: lists and counters are guarded by this pool's
 * monitor, never held while memory is allocated or freed.
 *
 * <p>Statistics: {@code waitsAvoided} counts every reuse (none ever waits); {@code waitsInserted}
 * is always 0; {@code overBudgetCount} counts allocas that failed for the quota.
 */
final class SyncPool extends BlockPool<SyncPool.Block> {
    /**
     * A committed allocation of the pool; it is also the free action of the buffer it is committed
     * to (gives itself back to its pool), so a commit makes no lambda.
     */
    static final class Block extends BlockPool.Block implements Runnable {
        private final SyncPool pool;

        Block(HeapBuffer storage, SyncPool pool) {
            super(storage);
            this.pool = pool;
        }

        @Override
        public void run() {
            pool.giveBack(this, pool.caching);
        }
    }

    /**
     * The memory a pass-through pool bound to one transient buffer: the buffer's commit tag and its
     * free action (gives the memory back to the allocator and the bytes to the pool). One object
     * per alloca, where a caching pool's {@link Block} needs a root buffer of its own to be kept.
     */
    static final class Lease implements Runnable {
        private final SyncPool pool;
        private final MemoryPool.Block memory;
        private final long size;
        /** Set at commit from the alloca's flags: dealloca leaves the memory to the last release. */
        final boolean indeterminate;

        Lease(SyncPool pool, MemoryPool.Block memory, long size, boolean indeterminate) {
            this.pool = pool;
            this.memory = memory;
            this.size = size;
            this.indeterminate = indeterminate;
        }

        @Override
        public void run() {
            pool.allocator.freeMemory(memory, size);
            pool.unreserve(size, false);
        }
    }

    private final boolean caching;
    private final HeapAllocator allocator;

    /**
     * @param name names the pool in messages
     * @param device the device that hands it out
     * @param allocator where blocks come from
     * @param params the bits of the memory the pool serves (already checked)
     * @param quota most bytes committed at once ({@code Long.MAX_VALUE}: unlimited)
     * @param caching whether freed blocks are kept for reuse
     */
    SyncPool(String name, Device device, HeapAllocator allocator, BufferParams params, long quota, boolean caching) {
        super(name, device, allocator, params, quota, false);
        this.caching = caching;
        this.allocator = allocator;
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
        if (!caching) {
            commitPassThrough(target, size, align, flags);
            return;
        }
        Block block;
        List<Block> trimmed = null; // made only when idle blocks may have to be freed for the quota
        StatusException overflow = null;
        synchronized (this) {
            checkOpenLocked("queueAlloca");
            checkQuota(size);
            block = takeIdleLocked(size, align, b -> false);
            if (block == null) {
                if (committedLocked() + size > quota) {
                    trimmed = new ArrayList<>();
                }
                if (!reserveLocked(size, trimmed)) {
                    countOverBudgetLocked();
                    overflow = new StatusException(StatusCode.RESOURCE_EXHAUSTED, "pool '" + name + "': alloca of "
                            + size + " bytes does not fit: " + committedLocked() + " of its quota of "
                            + quota + " bytes are in use (a synchronous device cannot wait for them)");
                }
            } else {
                countReuse(true);
            }
        }
        if (trimmed != null) {
            releaseAll(trimmed);
        }
        if (overflow != null) {
            throw overflow;
        }
        if (block == null) {
            block = allocateBlock(size, align, storage -> new Block(storage, this));
        }
        commit(target, block, flags, block);
    }

    /**
     * A pass-through pool keeps no idle block, so a commit binds the allocator's memory to
     * {@code target} directly under a {@link Lease} (the memory block's slice of this size is
     * cached by the block): no block buffer, block or lambda per alloca.
     */
    private void commitPassThrough(HeapBuffer target, long size, long align, long flags) {
        checkQuota(size);
        if (!reserveFresh("queueAlloca", size)) {
            throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, "pool '" + name + "': alloca of " + size
                    + " bytes does not fit its quota of " + quota + " bytes (a synchronous device cannot wait)");
        }
        MemoryPool.Block memory;
        try {
            memory = allocator.allocateMemory(size, align, true);
        } catch (StatusException e) {
            unreserve(size, true);
            throw e;
        }
        Lease lease = new Lease(this, memory, size, (flags & AllocaFlags.INDETERMINATE_LIFETIME) != 0);
        target.commit(memory.segment(size), lease, lease);
    }

    /**
     * Queue dealloca of {@code buffer}: gives its memory back now unless it was allocated with an
     * indeterminate lifetime; buffers that are not queue-allocated are left alone (a barrier).
     */
    static void dealloca(HeapBuffer buffer) {
        Object tag = buffer.commitTag();
        if (tag instanceof Block block && block.indeterminate || tag instanceof Lease lease && lease.indeterminate) {
            return;
        }
        if (buffer.isQueueAllocated() || tag instanceof Block || tag instanceof Lease) {
            buffer.decommit();
        }
    }

    @Override
    public void trim() {
        List<Block> idle;
        synchronized (this) {
            checkOpenLocked("trim");
            idle = drainIdleLocked();
        }
        releaseAll(idle);
    }
}
