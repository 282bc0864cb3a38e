package dev.ortho.hal.cpu.internal.heap;

import dev.ortho.hal.trace.HalTracing;
import dev.ortho.base.MemoryPool;
import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Allocator;
import dev.ortho.hal.AllocatorStatistics;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryHeap;
import dev.ortho.hal.MemoryType;
import dev.ortho.hal.trace.AllocationEvent;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An allocator of host memory for CPU devices: IREE's heap allocator. Memory comes from a
 * {@link MemoryPool} of the allocator's own: a buffer's memory is freed when its last reference
 * is released or its queue dealloca runs, into the pool, which hands it to the next buffer of its
 * size class (up to {@value #RETAINED_BYTES} bytes of idle memory are kept; beyond that, above
 * {@link MemoryPool#MAX_POOLED_SIZE} bytes or for alignments above {@link #MIN_ALIGNMENT}, freed
 * memory goes straight back to the system). So memory never waits for the garbage collector, and
 * freeing a small buffer closes no arena (a handshake with every JVM thread). Allocations are
 * zero-filled and aligned to at least {@link #MIN_ALIGNMENT} bytes. {@link #trim()} gives the idle
 * memory back; {@link #close()} (the device's teardown) does so and stops pooling.
 *
 * <p>A buffer's memory is reused only after the buffer freed it: subspans and mappings keep their
 * root buffer alive, and a buffer freed early by dealloca fails every later access
 * (FAILED_PRECONDITION). A host that kept a raw segment of a freed buffer sees memory that stays
 * mapped while the pool holds it and may belong to another buffer (see {@link MemoryPool}).
 *
 * <p>As in IREE, every buffer is host-visible and mappable whatever memory type was asked for
 * (the CPU shares the host's memory); {@code OPTIMAL} is dropped, and mapping and transfer usage
 * are always added. Imported memory is wrapped, not copied, and not counted in the statistics.
 *
 * <p>Thread-safe.
 */
public final class HeapAllocator implements Allocator {
    /** Alignment of every allocation, in bytes. */
    public static final long MIN_ALIGNMENT = MemoryPool.ALIGNMENT;
    /** Most bytes of idle memory the allocator keeps for reuse. */
    public static final long RETAINED_BYTES = 64L << 20;
    /** Usage every heap buffer gets in addition to what was asked for (IREE's heap allocator). */
    private static final int IMPLIED_USAGE = BufferUsage.MAPPING_SCOPED | BufferUsage.MAPPING_PERSISTENT
            | BufferUsage.MAPPING_ACCESS_RANDOM | BufferUsage.TRANSFER;
    private static final int ALL_USAGE = BufferUsage.TRANSFER | BufferUsage.DISPATCH
            | BufferUsage.SHARING_EXPORT | BufferUsage.SHARING_REPLICATE | BufferUsage.SHARING_CONCURRENT
            | BufferUsage.SHARING_IMMUTABLE | BufferUsage.MAPPING_SCOPED | BufferUsage.MAPPING_PERSISTENT
            | BufferUsage.MAPPING_OPTIONAL | BufferUsage.MAPPING_ACCESS_RANDOM
            | BufferUsage.MAPPING_ACCESS_SEQUENTIAL_WRITE;
    private static final List<MemoryHeap> HEAPS = List.of(
            new MemoryHeap(MemoryType.DEVICE_LOCAL | MemoryType.HOST_VISIBLE | MemoryType.HOST_COHERENT,
                    ALL_USAGE, Long.MAX_VALUE, MIN_ALIGNMENT),
            new MemoryHeap(MemoryType.HOST_LOCAL | MemoryType.DEVICE_VISIBLE, ALL_USAGE, Long.MAX_VALUE, MIN_ALIGNMENT));

    private final String name;
    private final AtomicLong bytesAllocated = new AtomicLong();
    private final AtomicLong bytesFreed = new AtomicLong();
    private final AtomicLong bytesPeak = new AtomicLong();
    private final AtomicLong sharedLiveBytes;
    private final MemoryPool pool;

    /** @param name names the allocator in error messages, e.g. the device name */
    public HeapAllocator(String name) {
        this(name, new AtomicLong());
    }

    /**
     * @param name names the allocator in error messages, e.g. the device name
     * @param sharedLiveBytes a counter of live allocated bytes shared with other allocators (a
     *     driver's total across its devices); this allocator adds and subtracts its own
     */
    public HeapAllocator(String name, AtomicLong sharedLiveBytes) {
        this.name = name;
        this.sharedLiveBytes = sharedLiveBytes;
        this.pool = new MemoryPool("allocator '" + name + "'", RETAINED_BYTES);
    }

    @Override
    public List<MemoryHeap> heaps() {
        return HEAPS;
    }

    /** @throws StatusException INVALID_ARGUMENT for null params or a negative size */
    @Override
    public int queryBufferCompatibility(BufferParams params, long size) {
        checkParams(params, size);
        int compatibility = COMPATIBILITY_ALLOCATABLE | COMPATIBILITY_IMPORTABLE | COMPATIBILITY_EXPORTABLE;
        int type = params.type() == 0 ? MemoryType.DEVICE_LOCAL : params.type();
        int usage = params.usage() == 0 ? BufferUsage.DEFAULT : params.usage();
        if (MemoryType.has(type, MemoryType.DEVICE_VISIBLE)) { // as IREE: only device-visible memory is queue-usable
            if ((usage & BufferUsage.TRANSFER) != 0) {
                compatibility |= COMPATIBILITY_QUEUE_TRANSFER;
            }
            if ((usage & BufferUsage.DISPATCH) != 0) {
                compatibility |= COMPATIBILITY_QUEUE_DISPATCH;
            }
        }
        return compatibility;
    }

    @Override
    public Buffer allocateBuffer(BufferParams params, long size) {
        return allocate(params, size, false);
    }

    /**
     * Allocates like {@link #allocateBuffer} and marks the buffer as queue-allocated, so that
     * {@link HeapBuffer#decommit()} on dealloca frees it.
     */
    public HeapBuffer allocate(BufferParams params, long size, boolean queueAllocated) {
        checkParams(params, size);
        MemoryPool.Block block = allocateMemory(size, params.minAlignment(), queueAllocated);
        return new HeapBuffer(block.segment(size), normalizedType(params), normalizedAccess(params),
                normalizedUsage(params), queueAllocated, () -> freeMemory(block, size));
    }

    /**
     * Zero-filled memory of at least {@code size} bytes aligned to {@code alignment} (and
     * {@link #MIN_ALIGNMENT}), counted in the statistics as an allocation of a buffer of
     * {@code size} bytes: for a pool that binds memory to its transient buffers itself, without a
     * buffer object per block. The caller gives it back once with {@link #freeMemory}.
     *
     * @param queueAllocated what the allocation trace event says about it
     * @throws StatusException RESOURCE_EXHAUSTED naming the size and alignment if the system has
     *     no memory; INVALID_ARGUMENT for a negative size or an alignment that is not a power of two
     */
    public MemoryPool.Block allocateMemory(long size, long alignment, boolean queueAllocated) {
        MemoryPool.Block block = pool.allocate(size, Math.max(MIN_ALIGNMENT, alignment), true);
        long live = bytesAllocated.addAndGet(size) - bytesFreed.get();
        bytesPeak.accumulateAndGet(live, Math::max);
        sharedLiveBytes.addAndGet(size);
        if (HalTracing.AVAILABLE) {
            AllocationEvent.record(name, size, queueAllocated); // nothing unless a recording enables it
        }
        return block;
    }

    /**
     * Gives back memory of {@link #allocateMemory} for {@code size} bytes (the size it was asked
     * for) and counts it freed. Once per block; the caller must not touch its memory afterwards.
     */
    public void freeMemory(MemoryPool.Block block, long size) {
        block.free();
        bytesFreed.addAndGet(size);
        sharedLiveBytes.addAndGet(-size);
    }

    /**
     * A queue-allocated buffer of {@code size} bytes with the type, access and usage
     * {@link #allocate} would give it, but no memory: what a queue alloca whose waits failed
     * returns. Allocates nothing and changes no statistics.
     *
     * @throws StatusException as {@link #allocate} for bad params or size
     */
    public HeapBuffer uncommitted(BufferParams params, long size) {
        checkParams(params, size);
        return HeapBuffer.uncommitted(size, normalizedType(params), normalizedAccess(params), normalizedUsage(params));
    }

    /**
     * A transient buffer of {@code size} bytes with the bits {@code params} give, whose memory a
     * pool binds later ({@link HeapBuffer#commit}); nothing is allocated or counted here.
     *
     * @throws StatusException INVALID_ARGUMENT for bad params or a negative size
     */
    public HeapBuffer transientBuffer(BufferParams params, long size) {
        checkParams(params, size);
        return new HeapBuffer(size, normalizedType(params), normalizedAccess(params), normalizedUsage(params));
    }

    @Override
    public Buffer importBuffer(BufferParams params, MemorySegment memory, Runnable releaseCallback) {
        if (memory == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "imported memory is null");
        }
        checkParams(params, memory.byteSize());
        if (memory.maxByteAlignment() < MIN_ALIGNMENT) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "imported memory at address 0x"
                    + Long.toHexString(memory.address()) + " is aligned to " + memory.maxByteAlignment()
                    + " bytes, below the required " + MIN_ALIGNMENT);
        }
        int access = normalizedAccess(params);
        if (memory.isReadOnly() && (access & MemoryAccess.WRITE) != 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "imported memory is read-only but params allow "
                    + MemoryAccess.format(access));
        }
        Runnable free = releaseCallback == null ? () -> { } : releaseCallback;
        return new HeapBuffer(memory, normalizedType(params), access, normalizedUsage(params), false, free);
    }

    @Override
    public AllocatorStatistics statistics() {
        return new AllocatorStatistics(bytesAllocated.get(), bytesFreed.get(), bytesPeak.get());
    }

    /** Gives the idle memory kept for reuse back to the system; live buffers are not affected. */
    @Override
    public void trim() {
        pool.trim();
    }

    /**
     * Stops keeping freed memory and gives the idle memory back (the device's teardown). Buffers
     * still alive keep their memory and free it to the system on their last release; allocating
     * still works, without reuse. Idempotent.
     */
    public void close() {
        pool.close();
    }

    /** Bytes of freed memory the allocator keeps for reuse now (a racy snapshot). */
    public long idleBytes() {
        return pool.idleBytes();
    }

    private void checkParams(BufferParams params, long size) {
        if (params == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "allocator '" + name + "': buffer params are null");
        }
        if (size < 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "allocator '" + name + "': buffer size "
                    + size + " is negative");
        }
        long alignment = params.minAlignment();
        if (alignment < 0 || (alignment & (alignment - 1)) != 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "allocator '" + name + "': min alignment "
                    + alignment + " is not a power of two");
        }
    }

    /** The memory type bits a buffer allocated with {@code params} has. */
    public int memoryTypeOf(BufferParams params) {
        return normalizedType(params);
    }

    /** The usage bits a buffer allocated with {@code params} has. */
    public int usageOf(BufferParams params) {
        return normalizedUsage(params);
    }

    private static int normalizedType(BufferParams params) {
        int type = params.type() == 0 ? MemoryType.DEVICE_LOCAL : params.type();
        return (type | MemoryType.HOST_VISIBLE) & ~MemoryType.OPTIMAL;
    }

    private static int normalizedAccess(BufferParams params) {
        return params.access() == 0 ? MemoryAccess.ALL : params.access();
    }

    private static int normalizedUsage(BufferParams params) {
        return (params.usage() == 0 ? BufferUsage.DEFAULT : params.usage()) | IMPLIED_USAGE;
    }

    @Override
    public String toString() {
        return "heap allocator '" + name + "'";
    }
}
