package dev.ortho.vm;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.VmList.StorageMode;
import java.util.Arrays;
import java.util.Objects;

/**
 * The slot storage behind {@link VmList}: the element type, the parallel slot arrays (canonical
 * value bits, refs, variant tags), their growth and the bytes charged to the list's
 * {@link HostMemoryLimit}, and the size operations that reset dropped slots (releasing their
 * refs). {@link VmList} adds the typed element access with IREE's conversion, ownership and
 * error rules; it is the only subclass.
 *
 * <p>Not thread-safe, as {@link VmList}.
 */
abstract class VmListStorage extends AbstractRefObject {
    private static final int MAX_CAPACITY = Integer.MAX_VALUE - 64;
    /** VARIANT mode tag of a ref slot (value slots hold {@link ValueType#value()}). */
    static final byte TAG_REF = 8;
    private static final long[] NO_BITS = new long[0];
    private static final RefObject[] NO_REFS = new RefObject[0];
    private static final byte[] NO_TAGS = new byte[0];

    StorageMode mode;
    ValueType valueType;
    RefType refType;
    int count;
    int capacity;
    /** VALUE and VARIANT modes: canonical 64-bit encoding of each value. */
    long[] bits = NO_BITS;
    /** REF and VARIANT modes. */
    RefObject[] refs = NO_REFS;
    /** VARIANT mode: 0 = empty, ValueType.value() for values, TAG_REF for refs. */
    byte[] tags = NO_TAGS;
    /** Charged for the storage arrays; travels with them in {@link #swapStorageWith}. */
    HostMemoryLimit memory = HostMemoryLimit.UNLIMITED;
    /** Bytes charged to {@link #memory}: {@link #bytesPerElement} times the capacity. */
    long chargedBytes;

    VmListStorage(StorageMode mode, ValueType valueType, RefType refType) {
        this.mode = mode;
        this.valueType = valueType;
        this.refType = refType;
    }

    /**
     * Sets the limit the storage is charged to and reserves {@code initialCapacity} slots (the
     * factories' second step).
     *
     * @throws StatusException INVALID_ARGUMENT for a negative capacity, else as {@link #reserve}
     */
    final void initStorage(int initialCapacity, HostMemoryLimit memory) {
        if (initialCapacity < 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "negative list capacity " + initialCapacity);
        }
        this.memory = Objects.requireNonNull(memory, "memory");
        reserve(initialCapacity);
    }

    /** Upper bound of the array bytes one element slot takes in {@code mode}. */
    private static long bytesPerElement(StorageMode mode) {
        return switch (mode) {
            case VALUE -> Long.BYTES;
            case REF -> 8; // a reference (4 with compressed oops)
            case VARIANT -> Long.BYTES + 8 + 1;
        };
    }

    /** The storage mode. */
    public StorageMode storageMode() {
        return mode;
    }

    /** Element value type for value lists, NONE otherwise. */
    public ValueType elementValueType() {
        return valueType;
    }

    /** Element ref type for ref lists, null otherwise. */
    public RefType elementRefType() {
        return refType;
    }

    /** Number of elements. */
    public int size() {
        return count;
    }

    /** Number of elements storable without growing. */
    public int capacity() {
        return capacity;
    }

    // ---------------------------------------------------------------------------------------------
    // Size management

    /**
     * Ensures room for {@code minimumCapacity} elements; new slots are zero/empty. Capacity grows
     * to a multiple of 64 and at least doubles.
     *
     * @throws StatusException OUT_OF_RANGE "capacity overflow" past the maximum array size,
     *     RESOURCE_EXHAUSTED if memory runs out or the list's {@link HostMemoryLimit} would be
     *     exceeded (growing to exactly {@code minimumCapacity} is tried before failing)
     */
    public void reserve(int minimumCapacity) {
        if (minimumCapacity <= capacity) {
            return;
        }
        if (minimumCapacity > MAX_CAPACITY) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "capacity overflow: " + minimumCapacity);
        }
        int aligned = (minimumCapacity + 63) & ~63;
        int newCapacity = (int) Math.min(MAX_CAPACITY, Math.max(aligned, 2L * capacity));
        long more = (newCapacity - (long) capacity) * bytesPerElement(mode);
        if (memory != HostMemoryLimit.UNLIMITED) {
            try {
                memory.charge(more, "growing " + this + " from capacity " + capacity + " to " + newCapacity);
            } catch (StatusException e) {
                if (minimumCapacity < newCapacity) { // the doubling overshoots: try for just the minimum
                    long least = ((long) minimumCapacity - capacity) * bytesPerElement(mode);
                    memory.charge(least, "growing " + this + " from capacity " + capacity + " to " + minimumCapacity);
                    newCapacity = minimumCapacity;
                    more = least;
                } else {
                    throw e;
                }
            }
        }
        try {
            if (mode != StorageMode.REF) {
                bits = Arrays.copyOf(bits, newCapacity);
            }
            if (mode != StorageMode.VALUE) {
                refs = Arrays.copyOf(refs, newCapacity);
            }
            if (mode == StorageMode.VARIANT) {
                tags = Arrays.copyOf(tags, newCapacity);
            }
        } catch (OutOfMemoryError e) {
            memory.refund(more);
            throw new StatusException(StatusCode.RESOURCE_EXHAUSTED,
                    "out of memory growing list to " + newCapacity + " elements");
        }
        chargedBytes += more;
        capacity = newCapacity;
    }

    /**
     * Sets the size: growing adds zero/empty elements, shrinking releases the refs dropped.
     *
     * @throws StatusException INVALID_ARGUMENT for a negative size, else as {@link #reserve}
     */
    public void resize(int newSize) {
        if (newSize < 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "negative list size " + newSize);
        }
        if (newSize < count) {
            resetRange(newSize, count);
        } else if (newSize > capacity) {
            reserve(newSize);
        }
        count = newSize;
    }

    /** Removes every element, releasing refs; keeps the capacity. */
    public void clear() {
        resetRange(0, count);
        count = 0;
    }

    final void resetRange(int from, int to) {
        if (mode != StorageMode.VALUE) {
            for (int i = from; i < to; i++) {
                RefObject r = refs[i];
                refs[i] = null;
                RefObject.release(r);
            }
        }
        if (mode != StorageMode.REF) {
            Arrays.fill(bits, from, to, 0L);
        }
        if (mode == StorageMode.VARIANT) {
            Arrays.fill(tags, from, to, (byte) 0);
        }
    }

    final void checkIndex(int i) {
        if (i < 0 || i >= count) {
            throw new StatusException(StatusCode.OUT_OF_RANGE,
                    "list index " + i + " out of range [0, " + count + ")");
        }
    }

    /** Exchanges element types, storage and sizes with {@code other} ({@link VmList#swapStorage}). */
    final void swapStorageWith(VmListStorage other) {
        if (other == this) {
            return;
        }
        StorageMode m = mode; mode = other.mode; other.mode = m;
        ValueType v = valueType; valueType = other.valueType; other.valueType = v;
        RefType r = refType; refType = other.refType; other.refType = r;
        int c = count; count = other.count; other.count = c;
        c = capacity; capacity = other.capacity; other.capacity = c;
        long[] b = bits; bits = other.bits; other.bits = b;
        RefObject[] rs = refs; refs = other.refs; other.refs = rs;
        byte[] t = tags; tags = other.tags; other.tags = t;
        HostMemoryLimit h = memory; memory = other.memory; other.memory = h;
        long charged = chargedBytes; chargedBytes = other.chargedBytes; other.chargedBytes = charged;
    }

    @Override
    protected void destroy() {
        resetRange(0, count);
        count = 0;
        // The storage goes with the last reference: give its bytes back to the limit.
        bits = NO_BITS;
        refs = NO_REFS;
        tags = NO_TAGS;
        capacity = 0;
        memory.refund(chargedBytes);
        chargedBytes = 0;
    }
}
