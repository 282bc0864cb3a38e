package dev.ortho.hal.cpu.internal.task;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.cpu.internal.heap.BlockPool;
import dev.ortho.hal.cpu.internal.heap.HeapAllocator;
import dev.ortho.hal.cpu.internal.heap.HeapBuffer;
import dev.ortho.hal.frontier.Frontier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A stream-ordered allocation pool of a {@code local-task} device (seed 004), exposed as a
 * {@link dev.ortho.hal.Pool}: the device's default pool, or one created by {@link Device#createPool} with its
 * own quota, free blocks and statistics: queue alloca takes a block, queue
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
 * <p><b>Alloca flags.</b> {@link dev.ortho.hal.AllocaFlags#ALLOW_POOL_WAIT_FRONTIER} changes
 * nothing here: a death frontier on this device only names work that has completed, so an
 * undominated block is immediately usable once its entries are imported (IREE's pools without
 * the flag may hand out only immediately-usable memory, which this is).
 * {@link dev.ortho.hal.AllocaFlags#INDETERMINATE_LIFETIME} makes dealloca of the buffer a barrier;
 * its block goes back to the system at the buffer's last release.
 *
 * <p><b>Lifetime.</b> Reference counted; queue allocas retain the pool until they retire. The
 * last release (or the device's teardown, for the default pool) closes it: idle blocks are freed
 * at once, blocks in use when their buffers release them.
 *
 * <p>Thread-safe: the block lists and counters are guarded by this pool's monitor, held only for
 * list updates (never while memory is allocated or semaphores are signalled).
 *
 * <p>Statistics: {@code waitsAvoided} counts reuses of dominated blocks, {@code waitsInserted}
 * reuses that imported death-frontier entries, {@code overBudgetCount} parked allocas.
 */
final class DevicePool extends BlockPool<DevicePool.Block> {
    /** A committed allocation of the pool. */
    static final class Block extends BlockPool.Block {
        final Frontier death = new Frontier(TaskQueue.FRONTIER_CAPACITY);
        /** Set by dealloca (with the death frontier) before the transient is decommitted. */
        volatile boolean recycle;

        Block(HeapBuffer storage) {
            super(storage);
        }
    }

    private final ArrayDeque<QueueOp> waiters = new ArrayDeque<>();

    /**
     * @param name names the pool in messages
     * @param device the device that hands the pool out ({@link #device()})
     * @param allocator where blocks come from
     * @param params the bits of the memory the pool serves (already checked)
     * @param quota most bytes committed at once ({@code Long.MAX_VALUE}: unlimited)
     */
    DevicePool(String name, Device device, HeapAllocator allocator, BufferParams params, long quota) {
        super(name, device, allocator, params, quota, true);
    }

    /** Frees the idle blocks; blocks in use stay. */
    @Override
    public void trim() {
        List<Block> idle;
        synchronized (this) {
            if (isClosedLocked()) {
                throw new StatusException(StatusCode.FAILED_PRECONDITION, "trim of pool '" + name
                        + "' after its last release");
            }
            idle = drainIdleLocked();
        }
        releaseAll(idle);
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
        checkQuota(size);
        Block block;
        boolean parked = false;
        List<Block> trimmed = new ArrayList<>(0);
        synchronized (this) {
            if (isClosedLocked()) {
                throw new StatusException(StatusCode.UNAVAILABLE, "pool '" + name + "' is closed");
            }
            // Best fit among free blocks of at most twice the size, preferring dominated death frontiers.
            block = takeIdleLocked(size, alignment, b -> queue.dominates(b.death));
            if (block == null && !reserveLocked(size, trimmed)) {
                waiters.add(op);
                countOverBudgetLocked();
                parked = true;
            }
        }
        releaseAll(trimmed);
        if (parked) {
            return false;
        }
        if (block == null) {
            block = allocateBlock(size, alignment, Block::new);
        } else {
            countReuse(queue.acquire(block.death));
        }
        commit(target, block, op.flags);
        return true;
    }

    private void commit(HeapBuffer target, Block block, long flags) {
        block.recycle = false;
        commit(target, block, flags, () -> returnBlock(block));
    }

    /**
     * Gives a transient buffer's block back to the pool it came from, with the deallocating
     * queue's frontier as its death frontier. A buffer that is not a committed pool transient, or
     * was allocated with an indeterminate lifetime, is left alone (dealloca of it is a barrier).
     */
    static void dealloca(HeapBuffer buffer, TaskQueue queue) {
        if (!(buffer.commitTag() instanceof Block block) || buffer.isDecommitted() || block.indeterminate) {
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
        giveBack(block, block.recycle);
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
            if (!op.isRetired()) { // retired: cancelled meanwhile (its device may be gone)
                op.queue.requeue(op);
            }
        }
    }

    @Override
    protected void onCloseLocked() {
        waiters.clear();
    }

    /** Counters for tests and diagnostics. */
    synchronized PoolStats stats() {
        var s = statistics();
        return new PoolStats(s.bytesCommitted(), idleBlockCount(), s.freshCount(), s.waitsAvoided(),
                s.waitsInserted(), s.overBudgetCount());
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
