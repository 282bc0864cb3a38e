package dev.ortho.hal.cpu.internal.task;

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
import dev.ortho.hal.frontier.Frontier;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stream-ordered allocation pool of a {@code local-task} device (seed 004), exposed as a
 * {@link Pool}: the device's default pool, or one created by {@link Device#createPool} with its
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
 */
final class DevicePool implements Pool {
    /** A committed allocation of the pool. */
    static final class Block {
        final DevicePool pool;
        final HeapBuffer storage;
        final MemorySegment memory;
        final long size;
        final Frontier death = new Frontier(TaskQueue.FRONTIER_CAPACITY);
        /** Set by dealloca (with the death frontier) before the transient is decommitted. */
        volatile boolean recycle;
        /** Set at commit from the alloca's flags: dealloca leaves the block to the last release. */
        volatile boolean indeterminate;

        Block(DevicePool pool, HeapBuffer storage) {
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
    private final PoolCapabilities capabilities;
    private final AtomicInteger references = new AtomicInteger(1);
    private final List<Block> free = new ArrayList<>();
    private final ArrayDeque<QueueOp> waiters = new ArrayDeque<>();
    private long committed;
    private long freeBytes;
    private long peak;
    private long reservations;
    private long fresh;
    private boolean closed;
    private long reusedDominated;
    private long reusedAfterImport;
    private long blocksCreated;
    private long parkedAllocas;

    /**
     * @param name names the pool in messages
     * @param device the device that hands the pool out ({@link #device()})
     * @param allocator where blocks come from
     * @param params the bits of the memory the pool serves (already checked)
     * @param quota most bytes committed at once ({@code Long.MAX_VALUE}: unlimited)
     */
    DevicePool(String name, Device device, HeapAllocator allocator, BufferParams params, long quota) {
        this.name = name;
        this.device = device;
        this.allocator = allocator;
        this.quota = quota;
        this.capabilities = new PoolCapabilities(allocator.memoryTypeOf(params), allocator.usageOf(params), 0, quota,
                HeapAllocator.MIN_ALIGNMENT, quota, true);
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public PoolCapabilities capabilities() {
        return capabilities;
    }

    @Override
    public synchronized PoolStatistics statistics() {
        return new PoolStatistics(committed - freeBytes, committed, peak, reservations, fresh, reusedDominated,
                reusedAfterImport, parkedAllocas);
    }

    /** Frees the idle blocks; blocks in use stay. */
    @Override
    public void trim() {
        List<Block> idle;
        synchronized (this) {
            if (closed) {
                throw new StatusException(StatusCode.FAILED_PRECONDITION, "trim of pool '" + name
                        + "' after its last release");
            }
            idle = new ArrayList<>(free);
            free.clear();
            committed -= freeBytes;
            freeBytes = 0;
        }
        idle.forEach(b -> b.storage.release());
    }

    /**
     * @throws StatusException FAILED_PRECONDITION naming {@code call} if the pool was released
     */
    synchronized void checkOpen(String call) {
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
                    freeBytes -= idle.size;
                    trimmed.add(idle);
                }
                if (committed + size > quota) {
                    waiters.add(op);
                    parkedAllocas++;
                    parked = true;
                } else {
                    committed += size; // reserved for the block allocated below
                    peak = Math.max(peak, committed);
                }
            }
        }
        trimmed.forEach(idle -> idle.storage.release());
        if (parked) {
            return false;
        }
        if (block == null) {
            return allocateBlock(target, size, alignment, op.flags);
        }
        count(queue.acquire(block.death));
        commit(target, block, op.flags);
        return true;
    }

    private boolean allocateBlock(HeapBuffer target, long size, long alignment, long flags) {
        Block block;
        try {
            block = new Block(this, allocator.allocate(new BufferParams(0, 0, 0, 0, alignment), size, false));
        } catch (StatusException e) {
            synchronized (this) {
                committed -= size;
            }
            throw e;
        }
        synchronized (this) {
            blocksCreated++;
            reservations++;
            fresh++;
        }
        commit(target, block, flags);
        return true;
    }

    private void commit(HeapBuffer target, Block block, long flags) {
        block.recycle = false;
        block.indeterminate = (flags & AllocaFlags.INDETERMINATE_LIFETIME) != 0;
        target.commit(block.memory.asSlice(0, target.byteLength()), () -> returnBlock(block), block);
    }

    private synchronized void count(boolean dominated) {
        reservations++;
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
        if (best < 0) {
            return null;
        }
        Block taken = free.remove(best);
        freeBytes -= taken.size;
        return taken;
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
        boolean keep;
        synchronized (this) {
            keep = block.recycle && !closed;
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

    /** Frees the idle blocks; blocks in use are freed when their buffers are released. */
    void shutdown() {
        List<Block> idle;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            idle = new ArrayList<>(free);
            free.clear();
            waiters.clear();
            committed -= freeBytes;
            freeBytes = 0;
        }
        idle.forEach(b -> b.storage.release());
    }

    @Override
    public String toString() {
        return "pool '" + name + "'";
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
