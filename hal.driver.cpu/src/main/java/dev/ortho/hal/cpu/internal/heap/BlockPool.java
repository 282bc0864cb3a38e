package dev.ortho.hal.cpu.internal.heap;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.AllocaFlags;
import dev.ortho.hal.Allocator;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.Pool;
import dev.ortho.hal.PoolCapabilities;
import dev.ortho.hal.PoolParams;
import dev.ortho.hal.PoolStatistics;
import dev.ortho.hal.spi.RefCount;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The bookkeeping every heap-backed {@link Pool} of the CPU drivers shares: reference counting,
 * capabilities, the list of idle blocks, the committed/peak/free byte counts and the
 * {@link PoolStatistics} counters. Subclasses decide when a freed block may be reused (the
 * queueing model of their device) and what an alloca that does not fit does (fail or park).
 *
 * <p>Thread-safety: the block list and counters are guarded by this pool's monitor; methods whose
 * names end in {@code Locked} must be called holding it. The monitor is never held while memory is
 * allocated or freed.
 *
 * @param <B> the block type of the subclass
 */
public abstract class BlockPool<B extends BlockPool.Block> implements Pool {
    /** A committed allocation of a pool. */
    public static class Block {
        /** The heap buffer owning the block's memory; released when the block goes back to the system. */
        public final HeapBuffer storage;
        /** The whole of the block's memory. */
        public final MemorySegment memory;
        /** Size of {@link #memory} in bytes. */
        public final long size;
        /** Set at commit from the alloca's flags: dealloca leaves the block to the last release. */
        public volatile boolean indeterminate;

        /** @param storage the freshly allocated buffer that becomes the block */
        protected Block(HeapBuffer storage) {
            this.storage = storage;
            this.memory = storage.range("pool block", 0, HeapBuffer.WHOLE_BUFFER);
            this.size = memory.byteSize();
        }
    }

    /** Names the pool in messages. */
    protected final String name;
    /** Most bytes committed at once ({@code Long.MAX_VALUE}: unlimited). */
    protected final long quota;
    private final Device device;
    private final HeapAllocator allocator;
    private final PoolCapabilities capabilities;
    private final RefCount references = new RefCount();
    private final List<B> free = new ArrayList<>();
    private long committed;
    private long freeBytes;
    private long peak;
    private long reservations;
    private long fresh;
    private long waitsAvoided;
    private long waitsInserted;
    private long overBudget;
    private boolean closed;

    /**
     * @param name names the pool in messages
     * @param device the device that hands the pool out ({@link #device()})
     * @param allocator where blocks come from
     * @param params the bits of the memory the pool serves (already checked)
     * @param quota most bytes committed at once ({@code Long.MAX_VALUE}: unlimited)
     * @param frontierWaits whether the pool may hand out blocks that need a wait (capabilities)
     */
    protected BlockPool(String name, Device device, HeapAllocator allocator, BufferParams params, long quota,
            boolean frontierWaits) {
        this.name = name;
        this.device = device;
        this.allocator = allocator;
        this.quota = quota;
        this.capabilities = new PoolCapabilities(allocator.memoryTypeOf(params), allocator.usageOf(params), 0, quota,
                HeapAllocator.MIN_ALIGNMENT, quota, frontierWaits);
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
        return new PoolStatistics(committed - freeBytes, committed, peak, reservations, fresh, waitsAvoided,
                waitsInserted, overBudget);
    }

    /** Idle blocks at the moment of the call. */
    protected synchronized int idleBlockCount() {
        return free.size();
    }

    /** @throws StatusException FAILED_PRECONDITION naming {@code call} if the pool was released */
    public synchronized void checkOpen(String call) {
        checkOpenLocked(call);
    }

    /**
     * {@link #checkOpen} for {@code call} on device {@code deviceName}: the message names both,
     * and is built only when the pool is closed (the check runs on every pooled queue alloca).
     */
    public synchronized void checkOpen(String call, String deviceName) {
        if (closed) {
            checkOpenLocked(call + " on device '" + deviceName + "'");
        }
    }

    /** {@link #checkOpen} for callers holding the monitor. */
    protected final void checkOpenLocked(String call) {
        if (closed) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, call + ": pool '" + name
                    + "' is used after its last release");
        }
    }

    /** Bytes committed (idle blocks plus blocks in use); call holding the monitor. */
    protected final long committedLocked() {
        return committed;
    }

    /** Whether the pool's last release (or shutdown) happened; call holding the monitor. */
    protected final boolean isClosedLocked() {
        return closed;
    }

    /** @throws StatusException RESOURCE_EXHAUSTED naming the pool if {@code size} alone exceeds the quota */
    protected final void checkQuota(long size) {
        if (size > quota) {
            throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, "pool '" + name + "': alloca of " + size
                    + " bytes exceeds the pool quota of " + quota + " bytes");
        }
    }

    /**
     * Removes the best idle block for a request: the smallest of those no smaller than
     * {@code size}, at most twice it and aligned to {@code alignment}, where a block that
     * {@code preferred} accepts beats any it rejects. Call holding the monitor.
     *
     * @return the block, or null if none fits
     */
    protected final B takeIdleLocked(long size, long alignment, Predicate<? super B> preferred) {
        int best = -1;
        boolean bestPreferred = false;
        for (int i = 0; i < free.size(); i++) {
            B b = free.get(i);
            if (b.size < size || b.size > 2 * Math.max(size, 1) || b.memory.address() % alignment != 0) {
                continue;
            }
            boolean isPreferred = preferred.test(b);
            if (best < 0 || (isPreferred && !bestPreferred)
                    || (isPreferred == bestPreferred && b.size < free.get(best).size)) {
                best = i;
                bestPreferred = isPreferred;
            }
        }
        if (best < 0) {
            return null;
        }
        B taken = free.remove(best);
        freeBytes -= taken.size;
        return taken;
    }

    /**
     * Makes room for {@code size} new bytes: removes idle blocks (newest first) until they fit the
     * quota or none is left, then reserves the bytes if they fit. Call holding the monitor; free
     * the returned blocks with {@link #releaseAll} after letting it go.
     *
     * @param evicted receives the idle blocks removed (their memory is no longer committed)
     * @return whether {@code size} bytes are now reserved (for {@link #allocateBlock})
     */
    protected final boolean reserveLocked(long size, List<B> evicted) {
        for (int i = free.size() - 1; i >= 0 && committed + size > quota; i--) {
            B idle = free.remove(i);
            committed -= idle.size;
            freeBytes -= idle.size;
            evicted.add(idle);
        }
        if (committed + size > quota) {
            return false;
        }
        committed += size;
        peak = Math.max(peak, committed);
        return true;
    }

    /**
     * Allocates a new block for {@code size} bytes that {@link #reserveLocked} reserved, and counts
     * it as a fresh reservation; the reservation is undone if the system has no memory.
     *
     * @throws StatusException RESOURCE_EXHAUSTED if the allocation fails
     */
    protected final B allocateBlock(long size, long alignment, Function<HeapBuffer, B> wrap) {
        B block;
        try {
            block = wrap.apply(allocator.allocate(new BufferParams(0, 0, 0, 0, alignment), size, false));
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
        return block;
    }

    /**
     * Reserves {@code size} bytes for memory the subclass binds without a block (a pool that keeps
     * nothing idle) and counts a fresh reservation, in one visit to the monitor; undo with
     * {@link #unreserve} when the memory cannot be had or is given back.
     *
     * @return false, counting an over-budget alloca and changing nothing else, if the bytes do not
     *     fit the quota
     * @throws StatusException FAILED_PRECONDITION naming {@code call} if the pool was released
     */
    protected final synchronized boolean reserveFresh(String call, long size) {
        checkOpenLocked(call);
        if (committed + size > quota) {
            overBudget++;
            return false;
        }
        committed += size;
        peak = Math.max(peak, committed);
        reservations++;
        fresh++;
        return true;
    }

    /**
     * Gives back {@code size} bytes of {@link #reserveFresh}: memory returned ({@code failed}
     * false), or never had (true: the reservation is not counted either).
     */
    protected final synchronized void unreserve(long size, boolean failed) {
        committed -= size;
        if (failed) {
            reservations--;
            fresh--;
        }
    }

    /** Counts a reservation served by an idle block, with or without a wait. */
    protected final synchronized void countReuse(boolean waitAvoided) {
        reservations++;
        if (waitAvoided) {
            waitsAvoided++;
        } else {
            waitsInserted++;
        }
    }

    /** Counts an alloca that did not fit the quota; call holding the monitor. */
    protected final void countOverBudgetLocked() {
        overBudget++;
    }

    /**
     * Sets {@code block}'s lifetime from the alloca {@code flags} and commits its first
     * {@code target.byteLength()} bytes to {@code target}; the buffer's free action is
     * {@code giveBack}.
     */
    /**
     * Checks {@code createPool}'s arguments for a device's pools: params and buffer params present
     * (INVALID_ARGUMENT naming the null one), a positive quota, and buffer params the device's
     * {@code allocator} accepts (its own error otherwise).
     */
    public static void checkCreateParams(String deviceName, PoolParams params, Allocator allocator) {
        if (params == null || params.bufferParams() == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "createPool on device '" + deviceName + "': "
                    + (params == null ? "params" : "params.bufferParams") + " is null");
        }
        if (params.quotaBytes() <= 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "createPool on device '" + deviceName
                    + "': quota " + params.quotaBytes() + " bytes is not positive");
        }
        allocator.queryBufferCompatibility(params.bufferParams(), 0); // checks the bits
    }

    protected static <B extends Block> void commit(HeapBuffer target, B block, long flags, Runnable giveBack) {
        block.indeterminate = (flags & AllocaFlags.INDETERMINATE_LIFETIME) != 0;
        target.commit(block.memory.asSlice(0, target.byteLength()), giveBack, block);
    }

    /**
     * Takes back a block whose buffer is done with it: kept idle for reuse if {@code keep} and the
     * pool is open, else its memory goes back to the system.
     */
    protected final void giveBack(B block, boolean keep) {
        boolean kept;
        synchronized (this) {
            kept = keep && !closed;
            if (kept) {
                free.add(block);
                freeBytes += block.size;
            } else {
                committed -= block.size;
            }
        }
        if (!kept) {
            block.storage.release();
        }
    }

    /** Removes every idle block from the pool; call holding the monitor, then {@link #releaseAll}. */
    protected final List<B> drainIdleLocked() {
        List<B> idle = new ArrayList<>(free);
        free.clear();
        committed -= freeBytes;
        freeBytes = 0;
        return idle;
    }

    /** Returns the memory of blocks removed from the pool to the system. */
    protected static void releaseAll(List<? extends Block> blocks) {
        blocks.forEach(b -> b.storage.release());
    }

    @Override
    public void retain() {
        if (!references.tryRetain()) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "retain of pool '" + name
                    + "' after its last release");
        }
    }

    @Override
    public void release() {
        if (references.release(this)) {
            shutdown();
        }
    }

    /** Closes the pool: frees the idle blocks; blocks in use are freed when given back. Idempotent. */
    public void shutdown() {
        List<B> idle;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            onCloseLocked();
            idle = drainIdleLocked();
        }
        releaseAll(idle);
    }

    /** Called once, holding the monitor, when the pool closes; drops subclass state. */
    protected void onCloseLocked() {}

    @Override
    public String toString() {
        return "pool '" + name + "'";
    }
}
