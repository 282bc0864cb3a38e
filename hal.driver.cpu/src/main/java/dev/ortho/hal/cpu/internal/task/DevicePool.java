package dev.ortho.hal.cpu.internal.task;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.cpu.internal.heap.HeapAllocator;
import dev.ortho.hal.cpu.internal.heap.HeapBuffer;
import dev.ortho.hal.frontier.Frontier;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The device's stream-ordered allocation pool (seed 004): queue alloca takes a block, queue
 * dealloca gives it back with a <em>death frontier</em>, and a later alloca reuses it.
 *
 * <p><b>Reuse rule (seed 002).</b> A dealloca records the deallocating queue's frontier at the
 * moment the dealloca executes, which covers every use of the buffer that the dealloca's waits
 * ordered before it. An alloca on queue {@code Q} prefers a free block whose death frontier
 * {@code Q}'s frontier dominates: reuse then needs no synchronisation at all. Otherwise it takes a
 * fitting block and waits only for the undominated entries; on this device every entry of a death
 * frontier has already happened (a frontier only names work that completed), so that wait is
 * the import of those entries into {@code Q}'s frontier and costs no suspension.
 *
 * <p><b>Quota.</b> Committed bytes (free blocks plus blocks in use) never exceed the quota. An
 * alloca that does not fit parks, after freeing idle blocks that do not fit, until a dealloca or
 * release returns memory; the parked operation is then retried on its queue. Two invocations
 * whose combined transient needs exceed the quota therefore serialise instead of failing; only a
 * single request above the quota fails (RESOURCE_EXHAUSTED).
 *
 * <p>Thread-safe: the block lists and counters are guarded by this pool's monitor, held only for
 * list updates (never while memory is allocated or semaphores are signalled).
 */
final class DevicePool {
    /** A committed allocation of the pool. */
    static final class Block {
        final HeapBuffer storage;
        final MemorySegment memory;
        final long size;
        final Frontier death = new Frontier(TaskQueue.FRONTIER_CAPACITY);
        /** Set by dealloca (with the death frontier) before the transient is decommitted. */
        volatile boolean recycle;

        Block(HeapBuffer storage) {
            this.storage = storage;
            this.memory = storage.range("pool block", 0, HeapBuffer.WHOLE_BUFFER);
            this.size = memory.byteSize();
        }
    }

    private final String name;
    private final HeapAllocator allocator;
    private final long quota;
    private final List<Block> free = new ArrayList<>();
    private final ArrayDeque<QueueOp> waiters = new ArrayDeque<>();
    private long committed;
    private boolean closed;
    private long reusedDominated;
    private long reusedAfterImport;
    private long blocksCreated;
    private long parkedAllocas;

    /** @param quota most bytes committed at once ({@code Long.MAX_VALUE}: unlimited) */
    DevicePool(String name, HeapAllocator allocator, long quota) {
        this.name = name;
        this.allocator = allocator;
        this.quota = quota;
    }

    /**
     * Commits memory to {@code op}'s transient buffer, or parks {@code op} until memory is
     * returned.
     *
     * @return true if the buffer is committed, false if the operation was parked
     * @throws StatusException RESOURCE_EXHAUSTED if the request alone exceeds the quota or the
     *     system has no memory; UNAVAILABLE if the pool was closed
     */
    boolean alloca(QueueOp op, TaskQueue queue) {
        HeapBuffer target = op.buffer;
        long size = target.byteLength();
        long alignment = Math.max(HeapAllocator.MIN_ALIGNMENT, op.alignment);
        if (size > quota) {
            throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, "pool '" + name + "': alloca of " + size
                    + " bytes exceeds the pool quota of " + quota + " bytes");
        }
        Block block;
        boolean parked = false;
        List<Block> trimmed = new ArrayList<>(0);
        synchronized (this) {
            if (closed) {
                throw new StatusException(StatusCode.UNAVAILABLE, "pool '" + name + "' is closed");
            }
            block = takeFree(size, alignment, queue);
            if (block == null) {
                for (int i = free.size() - 1; i >= 0 && committed + size > quota; i--) {
                    Block idle = free.remove(i);
                    committed -= idle.size;
                    trimmed.add(idle);
                }
                if (committed + size > quota) {
                    waiters.add(op);
                    parkedAllocas++;
                    parked = true;
                } else {
                    committed += size; // reserved for the block allocated below
                }
            }
        }
        trimmed.forEach(idle -> idle.storage.release());
        if (parked) {
            return false;
        }
        if (block == null) {
            return allocateBlock(target, size, alignment);
        }
        count(queue.acquire(block.death));
        commit(target, block);
        return true;
    }

    private boolean allocateBlock(HeapBuffer target, long size, long alignment) {
        Block block;
        try {
            block = new Block(allocator.allocate(new BufferParams(0, 0, 0, 0, alignment), size, false));
        } catch (StatusException e) {
            synchronized (this) {
                committed -= size;
            }
            throw e;
        }
        synchronized (this) {
            blocksCreated++;
        }
        commit(target, block);
        return true;
    }

    private void commit(HeapBuffer target, Block block) {
        block.recycle = false;
        target.commit(block.memory.asSlice(0, target.byteLength()), () -> returnBlock(block), block);
    }

    private synchronized void count(boolean dominated) {
        if (dominated) {
            reusedDominated++;
        } else {
            reusedAfterImport++;
        }
    }

    /** Best fit among free blocks of at most twice the size, preferring dominated death frontiers. */
    private Block takeFree(long size, long alignment, TaskQueue queue) {
        int best = -1;
        boolean bestDominated = false;
        for (int i = 0; i < free.size(); i++) {
            Block b = free.get(i);
            if (b.size < size || b.size > 2 * Math.max(size, 1) || b.memory.address() % alignment != 0) {
                continue;
            }
            boolean dominated = queue.dominates(b.death);
            if (best < 0 || (dominated && !bestDominated)
                    || (dominated == bestDominated && b.size < free.get(best).size)) {
                best = i;
                bestDominated = dominated;
            }
        }
        return best < 0 ? null : free.remove(best);
    }

    /**
     * Takes a transient buffer's block back with the deallocating queue's frontier as its death
     * frontier. A buffer that is not a committed pool transient is left alone (dealloca of it is
     * a barrier).
     */
    void dealloca(HeapBuffer buffer, TaskQueue queue) {
        if (!(buffer.commitTag() instanceof Block block) || buffer.isDecommitted()) {
            return;
        }
        queue.snapshot(block.death);
        block.recycle = true; // volatile: read by the free action, which may run on another thread
        buffer.decommit(); // returns the block now, or when the last open mapping closes
    }

    /**
     * The transient's free action: after a dealloca the block goes back to the free list with
     * its death frontier; after a plain last release (no death frontier) its memory goes back to
     * the system.
     */
    private void returnBlock(Block block) {
        boolean keep;
        synchronized (this) {
            keep = block.recycle && !closed;
            if (keep) {
                free.add(block);
            } else {
                committed -= block.size;
            }
        }
        if (!keep) {
            block.storage.release();
        }
        wakeWaiters();
    }

    private void wakeWaiters() {
        QueueOp[] parked;
        synchronized (this) {
            if (waiters.isEmpty()) {
                return;
            }
            parked = waiters.toArray(new QueueOp[0]);
            waiters.clear();
        }
        for (QueueOp op : parked) {
            op.queue.requeue(op);
        }
    }

    /** Frees the idle blocks; blocks in use are freed when their buffers are released. */
    void close() {
        List<Block> idle;
        synchronized (this) {
            closed = true;
            idle = new ArrayList<>(free);
            free.clear();
            waiters.clear();
            for (Block b : idle) {
                committed -= b.size;
            }
        }
        idle.forEach(b -> b.storage.release());
    }

    /** Counters for tests and diagnostics. */
    synchronized PoolStats stats() {
        return new PoolStats(committed, free.size(), blocksCreated, reusedDominated, reusedAfterImport, parkedAllocas);
    }

    /**
     * @param committedBytes bytes in blocks (free or in use)
     * @param freeBlocks idle blocks
     * @param blocksCreated blocks allocated from the system so far
     * @param reusedDominated reuses whose death frontier the queue already dominated
     * @param reusedAfterImport reuses that imported undominated death-frontier entries
     * @param parkedAllocas allocas that had to wait for memory
     */
    record PoolStats(long committedBytes, int freeBlocks, long blocksCreated, long reusedDominated,
            long reusedAfterImport, long parkedAllocas) {}
}
