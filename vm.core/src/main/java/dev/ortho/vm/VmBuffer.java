package dev.ortho.vm;

import dev.ortho.base.MemoryPool;
import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.internal.SipHash;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * A fixed-length byte buffer ({@code !vm.buffer}, IREE's {@code iree_vm_buffer_t}) backed by a
 * {@link MemorySegment}, little-endian like IREE.
 *
 * <p>Three ways to make one: {@link #allocate} (zeroed off-heap memory owned by the buffer and
 * freed when the last reference is released: into the {@link MemoryPool} it came from, which
 * recycles it for the next buffer, or straight back to the system), {@link #wrap} (a view of someone else's memory,
 * e.g. a mapped HAL buffer, without copying; the owner is retained until this buffer dies) and
 * {@link #rodata} (read-only module constants; the module stays reachable while the view lives).
 *
 * <p>Access bits are IREE's: {@link #ACCESS_MUTABLE} allows writes; the origin bits record who
 * created the buffer. Every access is bounds-checked: out-of-range offsets fail with OUT_OF_RANGE,
 * writes to a buffer without {@code ACCESS_MUTABLE} with PERMISSION_DENIED. Element-indexed loads
 * and stores take an index in elements (byte offset = index × element size), as the VM's
 * {@code vm.buffer.load/store} ops do.
 *
 * <p>After the last release every access through the buffer fails with FAILED_PRECONDITION and
 * {@link #segment()} returns a segment that cannot be accessed. A segment obtained earlier and kept
 * is the host's risk: memory from a pool stays mapped while the pool lives and may by then hold
 * another buffer's bytes (see {@link MemoryPool}); it never crashes the JVM.
 *
 * <p>Thread-safety: concurrent reads are safe; concurrent writes to overlapping ranges race as
 * plain memory does. Creation and release are thread-safe.
 */
public final class VmBuffer extends AbstractRefObject {
    /** The buffer may be written. */
    public static final int ACCESS_MUTABLE = 1;
    /** The buffer is module constant data (rodata). */
    public static final int ACCESS_ORIGIN_MODULE = 1 << 1;
    /** The buffer was created by guest (VM) code. */
    public static final int ACCESS_ORIGIN_GUEST = 1 << 2;
    /** The buffer was created by the host application. */
    public static final int ACCESS_ORIGIN_HOST = 1 << 3;

    private static final int ACCESS_ALL = 0xF;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(LE);
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(LE);
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(LE);
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(LE);
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(LE);

    private final int access;
    private final MemorySegment data;
    private final long length;
    /** {@link #length} while the buffer lives, -1 once destroyed: every range check then fails. */
    private long limit;
    /** The memory this buffer owns, freed on destroy; null for views. */
    private final MemoryPool.Block block;
    /** Retained at creation, released on destroy. */
    private final RefObject owner;
    /** Kept strongly reachable while this buffer is (a module holding rodata). */
    @SuppressWarnings({"unused", "FieldCanBeLocal"})
    private final Object keepAlive;
    /** Charged {@link #length} bytes at allocation, refunded on destroy; UNLIMITED if not counted. */
    private final HostMemoryLimit memory;

    private VmBuffer(int access, MemorySegment data, MemoryPool.Block block, RefObject owner, Object keepAlive) {
        this(access, data, block, owner, keepAlive, HostMemoryLimit.UNLIMITED);
    }

    private VmBuffer(int access, MemorySegment data, MemoryPool.Block block, RefObject owner, Object keepAlive,
                     HostMemoryLimit memory) {
        this.memory = memory;
        this.access = access;
        this.data = (access & ACCESS_MUTABLE) != 0 ? data : data.asReadOnly();
        this.length = data.byteSize();
        this.limit = length;
        this.block = block;
        this.owner = owner;
        this.keepAlive = keepAlive;
    }

    /**
     * Allocates {@code length} zeroed bytes aligned to {@code alignment} (at least 64, as
     * every allocation here), in memory of the buffer's own that the last release gives back to
     * the system. The caller owns the returned buffer's count.
     *
     * @throws StatusException INVALID_ARGUMENT for unknown access bits, a negative length or an
     *     alignment that is not a power of two, RESOURCE_EXHAUSTED if memory runs out
     */
    public static VmBuffer allocate(int access, long length, long alignment) {
        return allocateCopy(access, length, alignment, null, 0, HostMemoryLimit.UNLIMITED, null);
    }

    /**
     * As {@link #allocate(int, long, long)}, with the {@code length} bytes charged to
     * {@code memory} until the buffer is destroyed.
     *
     * @throws StatusException as {@link #allocate(int, long, long)}; RESOURCE_EXHAUSTED past the limit
     */
    public static VmBuffer allocate(int access, long length, long alignment, HostMemoryLimit memory) {
        return allocateCopy(access, length, alignment, null, 0, memory, null);
    }

    /**
     * As {@link #allocate(int, long, long, HostMemoryLimit)}, with the memory taken from
     * {@code pool} (null: memory of the buffer's own) and given back to it on the last release;
     * what {@code vm.buffer.alloc} does with its context's {@link Context#bufferPool()}.
     *
     * @throws StatusException as {@link #allocate(int, long, long, HostMemoryLimit)}
     */
    public static VmBuffer allocate(int access, long length, long alignment, HostMemoryLimit memory,
                                    MemoryPool pool) {
        return allocateCopy(access, length, alignment, null, 0, memory, pool);
    }

    /** Allocates and (if {@code source} is non-null) fills from {@code source[offset…]} before sealing access. */
    private static VmBuffer allocateCopy(int access, long length, long alignment, MemorySegment source, long offset,
                                         HostMemoryLimit limit, MemoryPool pool) {
        Objects.requireNonNull(limit, "memory");
        checkAccess(access);
        if (length < 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "negative buffer length " + length);
        }
        if (alignment <= 0 || Long.bitCount(alignment) != 1) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "buffer alignment " + alignment + " is not a power of two");
        }
        limit.charge(length, "allocating a " + length + " byte vm.buffer");
        MemoryPool.Block block;
        try {
            block = pool == null ? MemoryPool.allocateUnpooled(length, alignment)
                    : pool.allocate(length, alignment, source == null);
        } catch (StatusException e) {
            limit.refund(length);
            throw e.annotate("while allocating a " + length + " byte vm.buffer");
        }
        MemorySegment memory = block.segment(length);
        if (source != null) {
            MemorySegment.copy(source, offset, memory, 0, length);
        }
        return new VmBuffer(access, memory, block, null, null, limit);
    }

    /**
     * Views {@code segment} as a buffer without copying. {@code owner} (may be null) is retained
     * and released when this buffer is destroyed, so the memory outlives the view.
     *
     * @throws StatusException INVALID_ARGUMENT for unknown access bits or a read-only segment with
     *     {@link #ACCESS_MUTABLE}
     */
    public static VmBuffer wrap(int access, MemorySegment segment, RefObject owner) {
        checkAccess(access);
        Objects.requireNonNull(segment, "segment");
        if ((access & ACCESS_MUTABLE) != 0 && segment.isReadOnly()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "cannot wrap a read-only segment as mutable");
        }
        return new VmBuffer(access, segment, null, RefObject.retain(owner), null);
    }

    /**
     * A read-only view of module constant data ({@link #ACCESS_ORIGIN_MODULE}). {@code module}
     * (typically the loaded module holding the mapping) stays strongly reachable for the view's
     * lifetime.
     */
    public static VmBuffer rodata(MemorySegment segment, Object module) {
        return new VmBuffer(ACCESS_ORIGIN_MODULE, segment, null, null, Objects.requireNonNull(module, "module"));
    }

    private static void checkAccess(int access) {
        if ((access & ~ACCESS_ALL) != 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "unknown buffer access bits 0x" + Integer.toHexString(access));
        }
    }

    @Override
    public RefType refType() {
        return RefType.VM_BUFFER;
    }

    /** The access bits. */
    public int access() {
        return access;
    }

    /** True if {@link #ACCESS_MUTABLE} is set. */
    public boolean isMutable() {
        return (access & ACCESS_MUTABLE) != 0;
    }

    /** Length in bytes. */
    public long length() {
        return length;
    }

    /**
     * The backing memory: writable for mutable buffers, a read-only view otherwise. Valid until
     * the buffer is destroyed.
     */
    public MemorySegment segment() {
        return limit >= 0 ? data : Released.SEGMENT;
    }

    /** Returns the byte offset of a checked range (IREE's map: offset and length rounded down to alignment). */
    private long map(long offset, long byteLength, long alignment) {
        long mask = ~(alignment - 1);
        long o = offset & mask;
        long n = byteLength & mask;
        long end = o + n;
        if (offset < 0 || byteLength < 0 || end < 0 || end > limit) {
            if (limit < 0) {
                throw new StatusException(StatusCode.FAILED_PRECONDITION, this + " is used after its last release");
            }
            throw new StatusException(StatusCode.OUT_OF_RANGE, "out-of-bounds access detected (offset="
                    + offset + ", length=" + byteLength + ", alignment=" + alignment
                    + ", buffer length=" + length + ")");
        }
        return o;
    }

    private long mapRw(long offset, long byteLength, long alignment) {
        if ((access & ACCESS_MUTABLE) == 0) {
            throw new StatusException(StatusCode.PERMISSION_DENIED,
                    "buffer is read-only and cannot be mapped for mutation");
        }
        return map(offset, byteLength, alignment);
    }

    private static long elementOffset(long index, int elementSize) {
        // Indices beyond 2^59 cannot be in range; clamp so the multiplication cannot overflow.
        return index < 0 || index > (1L << 59) ? -1 : index * elementSize;
    }

    /**
     * Copies {@code length} bytes from {@code source[sourceOffset…]} into a new buffer with
     * {@code access} and {@code alignment}. The caller owns the result's count.
     *
     * @throws StatusException OUT_OF_RANGE if the source range is out of bounds, else as
     *     {@link #allocate}
     */
    public VmBuffer cloneRange(int access, long sourceOffset, long length, long alignment) {
        return cloneRange(access, sourceOffset, length, alignment, HostMemoryLimit.UNLIMITED);
    }

    /**
     * As {@link #cloneRange(int, long, long, long)}, with the clone's bytes charged to
     * {@code memory} until it is destroyed (RESOURCE_EXHAUSTED past the limit).
     */
    public VmBuffer cloneRange(int access, long sourceOffset, long length, long alignment, HostMemoryLimit memory) {
        return cloneRange(access, sourceOffset, length, alignment, memory, null);
    }

    /**
     * As {@link #cloneRange(int, long, long, long, HostMemoryLimit)}, with the clone's memory taken
     * from {@code pool} (null: memory of its own), as {@link #allocate(int, long, long,
     * HostMemoryLimit, MemoryPool)}.
     */
    public VmBuffer cloneRange(int access, long sourceOffset, long length, long alignment, HostMemoryLimit memory,
                               MemoryPool pool) {
        long o = map(sourceOffset, length, 1);
        return allocateCopy(access, length, alignment, data, o, memory, pool);
    }

    /**
     * Copies {@code length} bytes between buffers (ranges may overlap).
     *
     * @throws StatusException OUT_OF_RANGE for an out-of-bounds range, PERMISSION_DENIED if the
     *     target is read-only
     */
    public static void copyBytes(VmBuffer source, long sourceOffset, VmBuffer target, long targetOffset,
                                 long length) {
        long s = source.map(sourceOffset, length, 1);
        long t = target.mapRw(targetOffset, length, 1);
        MemorySegment.copy(source.data, s, target.data, t, length);
    }

    /**
     * True if the two ranges hold equal bytes.
     *
     * @throws StatusException OUT_OF_RANGE for an out-of-bounds range
     */
    public static boolean compareBytes(VmBuffer lhs, long lhsOffset, VmBuffer rhs, long rhsOffset, long length) {
        long l = lhs.map(lhsOffset, length, 1);
        long r = rhs.map(rhsOffset, length, 1);
        return MemorySegment.mismatch(lhs.data, l, l + length, rhs.data, r, r + length) == -1;
    }

    /**
     * Writes {@code elementCount} copies of the low {@code elementLength} bytes of
     * {@code pattern} starting at element {@code elementOffset}.
     *
     * @throws StatusException PERMISSION_DENIED if read-only, INVALID_ARGUMENT if
     *     {@code elementLength} is not 1, 2, 4 or 8, OUT_OF_RANGE for an out-of-bounds range
     */
    public void fillElements(long elementOffset, long elementCount, int elementLength, long pattern) {
        if ((access & ACCESS_MUTABLE) == 0) {
            mapRw(0, 0, 1);
        }
        if (elementLength != 1 && elementLength != 2 && elementLength != 4 && elementLength != 8) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "invalid element length "
                    + elementLength + "; expected one of [1, 2, 4, 8]");
        }
        long o = mapRw(elementOffset(elementOffset, elementLength), elementOffset(elementCount, elementLength),
                elementLength);
        switch (elementLength) {
            case 1 -> data.asSlice(o, elementCount).fill((byte) pattern);
            case 2 -> {
                for (long i = 0; i < elementCount; i++) {
                    data.set(I16, o + 2 * i, (short) pattern);
                }
            }
            case 4 -> {
                for (long i = 0; i < elementCount; i++) {
                    data.set(I32, o + 4 * i, (int) pattern);
                }
            }
            default -> {
                for (long i = 0; i < elementCount; i++) {
                    data.set(I64, o + 8 * i, pattern);
                }
            }
        }
    }

    /**
     * SipHash-2-4 (key bytes {@code 00..0f}) of {@code length} bytes at {@code offset}, as
     * {@code vm.buffer.hash}.
     *
     * @throws StatusException OUT_OF_RANGE for an out-of-bounds range
     */
    public long hash(long offset, long length) {
        long o = map(offset, length, 1);
        return SipHash.hash(data, o, length);
    }

    /** Loads the byte at element {@code index}. @throws StatusException OUT_OF_RANGE */
    public byte loadI8(long index) {
        return data.get(ValueLayout.JAVA_BYTE, map(index, 1, 1));
    }

    /** Loads the i16 at element {@code index}. @throws StatusException OUT_OF_RANGE */
    public short loadI16(long index) {
        return data.get(I16, map(elementOffset(index, 2), 2, 2));
    }

    /** Loads the i32 at element {@code index}. @throws StatusException OUT_OF_RANGE */
    public int loadI32(long index) {
        return data.get(I32, map(elementOffset(index, 4), 4, 4));
    }

    /** Loads the i64 at element {@code index}. @throws StatusException OUT_OF_RANGE */
    public long loadI64(long index) {
        return data.get(I64, map(elementOffset(index, 8), 8, 8));
    }

    /** Loads the f32 at element {@code index}. @throws StatusException OUT_OF_RANGE */
    public float loadF32(long index) {
        return data.get(F32, map(elementOffset(index, 4), 4, 4));
    }

    /** Loads the f64 at element {@code index}. @throws StatusException OUT_OF_RANGE */
    public double loadF64(long index) {
        return data.get(F64, map(elementOffset(index, 8), 8, 8));
    }

    /** Stores a byte at element {@code index}. @throws StatusException PERMISSION_DENIED, OUT_OF_RANGE */
    public void storeI8(long index, byte value) {
        data.set(ValueLayout.JAVA_BYTE, mapRw(index, 1, 1), value);
    }

    /** Stores an i16 at element {@code index}. @throws StatusException PERMISSION_DENIED, OUT_OF_RANGE */
    public void storeI16(long index, short value) {
        data.set(I16, mapRw(elementOffset(index, 2), 2, 2), value);
    }

    /** Stores an i32 at element {@code index}. @throws StatusException PERMISSION_DENIED, OUT_OF_RANGE */
    public void storeI32(long index, int value) {
        data.set(I32, mapRw(elementOffset(index, 4), 4, 4), value);
    }

    /** Stores an i64 at element {@code index}. @throws StatusException PERMISSION_DENIED, OUT_OF_RANGE */
    public void storeI64(long index, long value) {
        data.set(I64, mapRw(elementOffset(index, 8), 8, 8), value);
    }

    /** Stores an f32 at element {@code index}. @throws StatusException PERMISSION_DENIED, OUT_OF_RANGE */
    public void storeF32(long index, float value) {
        data.set(F32, mapRw(elementOffset(index, 4), 4, 4), value);
    }

    /** Stores an f64 at element {@code index}. @throws StatusException PERMISSION_DENIED, OUT_OF_RANGE */
    public void storeF64(long index, double value) {
        data.set(F64, mapRw(elementOffset(index, 8), 8, 8), value);
    }

    @Override
    protected void destroy() {
        limit = -1; // before the memory can be handed out again: later accesses through this buffer fail
        if (block != null) {
            block.free();
            memory.refund(length);
        }
        RefObject.release(owner);
    }

    /** A segment no one can access: what {@link #segment()} returns after the last release. */
    private static final class Released {
        static final MemorySegment SEGMENT;

        static {
            Arena arena = Arena.ofShared();
            SEGMENT = arena.allocate(1).asSlice(0, 0);
            arena.close();
        }
    }

    @Override
    public String toString() {
        return "vm.buffer[" + length + (isMutable() ? "" : ", read-only") + "]";
    }
}
