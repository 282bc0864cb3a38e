package dev.ortho.base;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Recycled off-heap memory for buffers that come and go at a high rate: blocks of a power-of-two
 * size ({@value #MIN_BLOCK_SIZE} bytes to {@value #MAX_POOLED_SIZE} bytes), aligned to
 * {@value #ALIGNMENT} bytes, whose first {@code size} bytes are zero when {@link #allocate} hands
 * them out.
 *
 * <p><b>Why.</b> Memory a buffer owns must be freed when the buffer dies, not when the garbage
 * collector gets to it, so every block lives in a shared {@link Arena} that is closed explicitly.
 * Closing a shared arena is a handshake with every JVM thread (tens of microseconds, and the
 * closing thread waits for all of them); doing that per buffer dominated programs that allocate
 * small buffers per call. Here a freed block goes back to a free list of its size class and the
 * next allocation of that class takes it: allocating and freeing a pooled block opens and closes
 * nothing. A block's arena is closed only when the block leaves the pool: when keeping it would
 * exceed the retention limit, on {@link #trim()}, and on {@link #close()}.
 *
 * <p><b>What is pooled.</b> Requests of at most {@value #MAX_POOLED_SIZE} bytes with an alignment
 * of at most {@value #ALIGNMENT}. Larger or more strictly aligned requests get a block of their
 * own (exactly sized, own arena), closed when it is freed: for those the close is small next to
 * the cost of filling the memory. Idle blocks are retained up to {@link #retainedLimit()} bytes in
 * all and at most {@value #MAX_SLOTS} blocks per size class; a block freed beyond that is closed
 * at once. A pool with a limit of 0 retains nothing (every free closes).
 *
 * <p><b>Fast path.</b> Each size class has a fixed array of slots: allocating takes the first
 * occupied slot with a compare-and-set to null, freeing puts the block into the first empty slot
 * with a compare-and-set from null. A slot holds a block or nothing, so a block is owned by
 * exactly one party at a time (no ABA problem), and neither path locks or allocates (the slice a
 * block returns from {@link Block#segment(long)} is cached per length).
 *
 * <p><b>Ownership.</b> A block handed out is owned by its caller until {@link Block#free()}; the
 * pool never touches it meanwhile. Freeing a block twice without it being handed out again fails
 * with FAILED_PRECONDITION; a stale second free after the block was handed out again cannot be
 * told apart from its new owner's free, so owners must free exactly once (Ortho's buffers free
 * from their last reference release, which runs once).
 *
 * <p><b>Memory a host kept after freeing.</b> A {@link MemorySegment} obtained from a block stays
 * valid memory while the block is in the pool: reading it after the free sees zeros, stale bytes
 * or the bytes of whichever buffer received the block next, and writing it corrupts that buffer's
 * contents. Once the block's arena is closed (retention limit, trim, close, or an unpooled block's
 * free) any access through the segment throws {@link IllegalStateException}. It never crashes the
 * JVM: segments of a closed arena cannot be accessed at all.
 *
 * <p><b>Closing.</b> {@link #close()} closes every idle block; blocks still handed out stay valid
 * until their owners free them, which then closes them at once. Allocating from a closed pool still
 * works but pools nothing. Every pool must be closed by its owner (a device, a context): idle blocks
 * live in shared arenas, which the garbage collector never frees.
 *
 * <p>Thread-safe: any thread may allocate, and any thread may free any block.
 */
public final class MemoryPool implements AutoCloseable {
    /** Alignment of every pooled block, in bytes (a cache line; IREE's heap buffers use the same). */
    public static final long ALIGNMENT = 64;
    /** Size of the smallest block. */
    public static final long MIN_BLOCK_SIZE = 64;
    /** Largest request that is pooled; larger ones get an exactly sized block of their own. */
    public static final long MAX_POOLED_SIZE = 4L << 20;
    /** Most idle blocks retained per size class. */
    public static final int MAX_SLOTS = 64;

    private static final int MIN_SHIFT = Long.numberOfTrailingZeros(MIN_BLOCK_SIZE);
    private static final int CLASSES = Long.numberOfTrailingZeros(MAX_POOLED_SIZE) - MIN_SHIFT + 1;
    private static final int UNPOOLED = -1;
    private static final int IN_USE = 1;
    private static final int IDLE = 2;
    private static final int CLOSED = 3;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Block[].class);
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Block.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * A block of memory handed out by {@link #allocate} or {@link #allocateUnpooled}. Owned by one
     * party at a time (see the pool's class description).
     */
    public static final class Block {
        private final MemoryPool pool;
        private final Arena arena;
        private final MemorySegment memory;
        private final int sizeClass;
        /** Accessed through {@link #STATE}: IN_USE, IDLE or CLOSED. */
        @SuppressWarnings("unused")
        private volatile int state = IN_USE;
        /** The last slice {@link #segment(long)} returned; touched only by the block's owner. */
        private MemorySegment slice;

        private Block(MemoryPool pool, Arena arena, MemorySegment memory, int sizeClass) {
            this.pool = pool;
            this.arena = arena;
            this.memory = memory;
            this.sizeClass = sizeClass;
            this.slice = memory;
        }

        /** The whole block: at least the size asked for, {@link #capacity()} bytes. */
        public MemorySegment segment() {
            return memory;
        }

        /**
         * The first {@code length} bytes of the block. Allocates nothing when the previous call
         * asked for the same length (what a pool's repeated allocations of one size do).
         *
         * @throws IndexOutOfBoundsException if {@code length} is negative or above {@link #capacity()}
         */
        public MemorySegment segment(long length) {
            MemorySegment s = slice;
            if (s.byteSize() != length) {
                s = memory.asSlice(0, length);
                slice = s;
            }
            return s;
        }

        /** Size of the block in bytes (a power of two for pooled blocks, the request otherwise). */
        public long capacity() {
            return memory.byteSize();
        }

        /** Whether the block came from a pool's size classes (else it has an arena of its own). */
        public boolean isPooled() {
            return sizeClass != UNPOOLED;
        }

        /**
         * Gives the block back: to its pool's free list if there is room, else its memory to the
         * system. The caller must not use the block or any segment of it afterwards.
         *
         * @throws StatusException FAILED_PRECONDITION if the block is not handed out (freed twice)
         */
        public void free() {
            if (!STATE.compareAndSet(this, IN_USE, IDLE)) {
                throw new StatusException(StatusCode.FAILED_PRECONDITION, "memory block of " + capacity()
                        + " bytes at 0x" + Long.toHexString(memory.address()) + " freed twice"
                        + (pool == null ? "" : " (" + pool.name + ")"));
            }
            if (pool == null || sizeClass == UNPOOLED) {
                dispose();
            } else {
                pool.recycle(this);
            }
        }

        /** Closes the block's arena; its memory goes back to the system. */
        private void dispose() {
            state = CLOSED;
            arena.close();
        }

        @Override
        public String toString() {
            return "memory block [" + capacity() + " bytes" + (isPooled() ? ", pooled" : "") + "]";
        }
    }

    private final String name;
    private final long retainedLimit;
    private final Block[][] slots = new Block[CLASSES][];
    private final AtomicLong idleBytes = new AtomicLong();
    private volatile boolean closed;

    /**
     * A pool retaining up to {@code retainedLimit} bytes of idle blocks.
     *
     * @param name names the pool in error messages, e.g. {@code allocator 'local-sync'}
     * @throws StatusException INVALID_ARGUMENT for a negative {@code retainedLimit}
     */
    public MemoryPool(String name, long retainedLimit) {
        if (retainedLimit < 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "memory pool '" + name + "': retained limit "
                    + retainedLimit + " is negative");
        }
        this.name = name;
        this.retainedLimit = retainedLimit;
        for (int c = 0; c < CLASSES; c++) {
            long slotCount = Math.min(MAX_SLOTS, retainedLimit >> (c + MIN_SHIFT));
            slots[c] = new Block[(int) slotCount];
        }
    }

    /**
     * A block of at least {@code size} bytes aligned to at least {@code alignment}, its first
     * {@code size} bytes zero if {@code zero} (a fresh block is always zero). The caller owns it
     * until {@link Block#free()}.
     *
     * @throws StatusException INVALID_ARGUMENT for a negative size or an alignment that is not a
     *     power of two, RESOURCE_EXHAUSTED naming the pool, size and alignment if the system has
     *     no memory (after giving back the pool's idle blocks)
     */
    public Block allocate(long size, long alignment, boolean zero) {
        checkRequest(name, size, alignment);
        int sizeClass = size > MAX_POOLED_SIZE ? UNPOOLED : sizeClass(size);
        if (sizeClass == UNPOOLED || alignment > ALIGNMENT || closed || slots[sizeClass].length == 0) {
            return fresh(this, UNPOOLED, size, size, Math.max(alignment, ALIGNMENT));
        }
        Block[] free = slots[sizeClass];
        for (int i = 0; i < free.length; i++) {
            Block b = (Block) SLOT.getAcquire(free, i);
            // acquire/CAS: pairs with the CAS in recycle(), which published the idle block
            if (b != null && SLOT.compareAndSet(free, i, b, null)) {
                idleBytes.addAndGet(-b.capacity());
                STATE.setRelease(b, IN_USE); // no fence: the owner's free() (CAS) or a hand-over orders it
                if (zero) {
                    b.segment(size).fill((byte) 0);
                }
                return b;
            }
        }
        return fresh(this, sizeClass, size, MIN_BLOCK_SIZE << sizeClass, ALIGNMENT);
    }

    /**
     * A block of exactly {@code size} zeroed bytes aligned to at least {@code alignment} (and
     * {@value #ALIGNMENT}) in an arena of its own, closed when it is freed; for owners without a
     * pool.
     *
     * @throws StatusException as {@link #allocate}
     */
    public static Block allocateUnpooled(long size, long alignment) {
        checkRequest("unpooled memory", size, alignment);
        return fresh(null, UNPOOLED, size, size, Math.max(alignment, ALIGNMENT));
    }

    private static void checkRequest(String name, long size, long alignment) {
        if (size < 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, name + ": negative allocation size " + size);
        }
        if (alignment <= 0 || (alignment & (alignment - 1)) != 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, name + ": alignment " + alignment
                    + " is not a power of two");
        }
    }

    /** A new block of {@code bytes} (for a request of {@code size}) in an arena of its own. */
    private static Block fresh(MemoryPool pool, int sizeClass, long size, long bytes, long alignment) {
        for (int attempt = 0; ; attempt++) {
            Arena arena = Arena.ofShared();
            try {
                return new Block(pool, arena, arena.allocate(bytes, alignment), sizeClass); // zeroed by the arena
            } catch (OutOfMemoryError | IllegalArgumentException e) {
                arena.close();
                if (attempt == 0 && pool != null && pool.idleBytes.get() > 0) {
                    pool.trim(); // idle blocks are memory the system may need
                    continue;
                }
                throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, (pool == null ? "unpooled memory"
                        : pool.name) + " cannot allocate " + size + " bytes aligned to " + alignment + ": "
                        + e.getMessage());
            }
        }
    }

    /** The size class of a pooled request: the smallest power of two ≥ size, at least 64. */
    private static int sizeClass(long size) {
        long rounded = Math.max(size, MIN_BLOCK_SIZE) - 1;
        return 64 - Long.numberOfLeadingZeros(rounded) - MIN_SHIFT;
    }

    /** Takes back a freed pooled block (state already IDLE), or closes it if there is no room. */
    private void recycle(Block block) {
        long bytes = block.capacity();
        if (closed) {
            block.dispose();
            return;
        }
        if (idleBytes.addAndGet(bytes) > retainedLimit) { // counted before the put, so the limit is never exceeded
            idleBytes.addAndGet(-bytes);
            block.dispose();
            return;
        }
        Block[] free = slots[block.sizeClass];
        for (int i = 0; i < free.length; i++) {
            // CAS: publishes the block to the allocate() that takes it (pairs with its acquire)
            if (SLOT.getAcquire(free, i) == null && SLOT.compareAndSet(free, i, null, block)) {
                if (closed && SLOT.compareAndSet(free, i, block, null)) { // close() may have drained before the put
                    idleBytes.addAndGet(-bytes);
                    block.dispose();
                }
                return;
            }
        }
        idleBytes.addAndGet(-bytes);
        block.dispose();
    }

    /**
     * Closes every idle block, giving its memory back to the system; blocks handed out are not
     * affected. Thread-safe; allocation and free may run concurrently.
     */
    public void trim() {
        for (Block[] free : slots) {
            for (int i = 0; i < free.length; i++) {
                Block b = (Block) SLOT.getAndSet(free, i, null);
                if (b != null) {
                    idleBytes.addAndGet(-b.capacity());
                    b.dispose();
                }
            }
        }
    }

    /**
     * Stops pooling and closes every idle block; blocks still handed out are closed when they are
     * freed. Idempotent.
     */
    @Override
    public void close() {
        closed = true; // volatile: recycle() re-checks it after its put, so no block stays behind
        trim();
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return closed;
    }

    /** Bytes of idle blocks the pool holds now (a racy snapshot). */
    public long idleBytes() {
        return idleBytes.get();
    }

    /** The most bytes of idle blocks the pool retains. */
    public long retainedLimit() {
        return retainedLimit;
    }

    /** The pool's name, as in its error messages. */
    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return "memory pool '" + name + "' [" + idleBytes.get() + " of " + retainedLimit + " bytes idle"
                + (closed ? ", closed" : "") + "]";
    }
}
