package dev.ortho.vm;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.util.Objects;

/**
 * A growable list of values, refs or variants ({@code !vm.list}, IREE's {@code iree_vm_list_t}).
 *
 * <p>The element type fixes the storage mode: a value list stores one {@link ValueType} and
 * converts on set/get with IREE's rules; a ref list stores refs of one {@link RefType} (checked on
 * set, {@link RefType#ANY} accepts all); a variant list stores anything per slot. New slots are
 * zero (or null, or empty); shrinking and clearing release the refs dropped.
 *
 * <p>Ownership: the list owns one count of every ref it stores. {@code …Retain} setters retain
 * the caller's ref, {@code …Move} setters take over the caller's count; getters either borrow
 * ({@link #getRef}), retain for the caller ({@link #getRefRetain}) or move the count out and clear
 * the slot ({@link #getRefMove}). The list itself is a {@link RefObject} created with one count;
 * its last release releases every element.
 *
 * <p>Errors follow IREE: an index outside {@code [0, size)} is OUT_OF_RANGE; storing or loading
 * the wrong kind (a ref into a value list, a value out of a ref slot) is FAILED_PRECONDITION; a
 * ref of the wrong type is INVALID_ARGUMENT. Not thread-safe: one thread at a time, as in IREE.
 */
public final class VmList extends VmListStorage {
    /** How elements are stored, derived from the element type. */
    public enum StorageMode {
        /** Primitive values of one {@link ValueType}. */
        VALUE,
        /** Refs of one {@link RefType}. */
        REF,
        /** Any value or ref per slot. */
        VARIANT
    }

    private VmList(StorageMode mode, ValueType valueType, RefType refType) {
        super(mode, valueType, refType);
    }

    /**
     * Creates a list of primitive {@code type} values with room for {@code initialCapacity}.
     *
     * @throws StatusException INVALID_ARGUMENT for NONE or a negative capacity, OUT_OF_RANGE if the
     *     capacity is too large, RESOURCE_EXHAUSTED if memory runs out
     */
    public static VmList ofValues(ValueType type, int initialCapacity) {
        if (Objects.requireNonNull(type, "type") == ValueType.NONE) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "value list element type cannot be NONE");
        }
        return create(new VmList(StorageMode.VALUE, type, null), initialCapacity);
    }

    /** Creates a list of refs of {@code type} ({@link RefType#ANY} for any). Errors as {@link #ofValues}. */
    public static VmList ofRefs(RefType type, int initialCapacity) {
        return create(new VmList(StorageMode.REF, ValueType.NONE, Objects.requireNonNull(type, "type")),
                initialCapacity);
    }

    /** Creates a list of variants. Errors as {@link #ofValues}. */
    public static VmList ofVariants(int initialCapacity) {
        return create(new VmList(StorageMode.VARIANT, ValueType.NONE, null), initialCapacity);
    }

    /**
     * As {@link #ofValues(ValueType, int)}, with the storage (now and as the list grows) charged to
     * {@code memory} until the list is destroyed.
     *
     * @throws StatusException as {@link #ofValues(ValueType, int)}; RESOURCE_EXHAUSTED past the limit
     */
    public static VmList ofValues(ValueType type, int initialCapacity, HostMemoryLimit memory) {
        if (Objects.requireNonNull(type, "type") == ValueType.NONE) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "value list element type cannot be NONE");
        }
        return create(new VmList(StorageMode.VALUE, type, null), initialCapacity, memory);
    }

    /**
     * As {@link #ofRefs(RefType, int)}, charged to {@code memory} as
     * {@link #ofValues(ValueType, int, HostMemoryLimit)}.
     */
    public static VmList ofRefs(RefType type, int initialCapacity, HostMemoryLimit memory) {
        return create(new VmList(StorageMode.REF, ValueType.NONE, Objects.requireNonNull(type, "type")),
                initialCapacity, memory);
    }

    /**
     * As {@link #ofVariants(int)}, charged to {@code memory} as
     * {@link #ofValues(ValueType, int, HostMemoryLimit)}.
     */
    public static VmList ofVariants(int initialCapacity, HostMemoryLimit memory) {
        return create(new VmList(StorageMode.VARIANT, ValueType.NONE, null), initialCapacity, memory);
    }

    private static VmList create(VmList list, int initialCapacity) {
        return create(list, initialCapacity, HostMemoryLimit.UNLIMITED);
    }

    private static VmList create(VmList list, int initialCapacity, HostMemoryLimit memory) {
        list.initStorage(initialCapacity, memory);
        return list;
    }

    @Override
    public RefType refType() {
        return RefType.VM_LIST;
    }

    // ---------------------------------------------------------------------------------------------
    // Values

    /**
     * Returns element {@code i} converted to {@code type} with IREE's rules (integer widths
     * convert to each other, f32/f64 to each other, integer/float crossings yield 0), in canonical
     * 64-bit encoding.
     *
     * @throws StatusException OUT_OF_RANGE for a bad index, FAILED_PRECONDITION if the list stores
     *     refs or the variant at {@code i} is not a value
     */
    public long getValueBits(int i, ValueType type) {
        checkIndex(i);
        return switch (mode) {
            case VALUE -> ValueType.convert(bits[i], valueType, type);
            case VARIANT -> {
                byte tag = tags[i];
                if (tag == 0 || tag == TAG_REF) {
                    throw new StatusException(StatusCode.FAILED_PRECONDITION,
                            "variant at index " + i + " is not a value type");
                }
                yield ValueType.convert(bits[i], ValueType.fromValue(tag), type);
            }
            case REF -> throw new StatusException(StatusCode.FAILED_PRECONDITION, "list does not store values");
        };
    }

    /** Element {@code i} as i32; see {@link #getValueBits}. */
    public int getI32(int i) {
        return (int) getValueBits(i, ValueType.I32);
    }

    /** Element {@code i} as i64; see {@link #getValueBits}. */
    public long getI64(int i) {
        return getValueBits(i, ValueType.I64);
    }

    /** Element {@code i} as f32; see {@link #getValueBits}. */
    public float getF32(int i) {
        return Float.intBitsToFloat((int) getValueBits(i, ValueType.F32));
    }

    /** Element {@code i} as f64; see {@link #getValueBits}. */
    public double getF64(int i) {
        return Double.longBitsToDouble(getValueBits(i, ValueType.F64));
    }

    /**
     * Returns the value at {@code i} with its stored type. Errors as {@link #getValueBits}.
     */
    public Variant getValue(int i) {
        checkIndex(i);
        ValueType stored = switch (mode) {
            case VALUE -> valueType;
            case VARIANT -> {
                byte tag = tags[i];
                if (tag == 0 || tag == TAG_REF) {
                    throw new StatusException(StatusCode.FAILED_PRECONDITION,
                            "variant at index " + i + " is not a value type");
                }
                yield ValueType.fromValue(tag);
            }
            case REF -> throw new StatusException(StatusCode.FAILED_PRECONDITION, "list does not store values");
        };
        return Variant.ofBits(stored, bits[i]);
    }

    /**
     * Stores a value of {@code type} (canonical encoding) at {@code i}: a value list converts it to
     * its element type; a variant list keeps {@code type} and releases a ref it replaces.
     *
     * @throws StatusException OUT_OF_RANGE for a bad index, FAILED_PRECONDITION for a ref list,
     *     INVALID_ARGUMENT if {@code type} is NONE
     */
    public void setValueBits(int i, ValueType type, long value) {
        checkIndex(i);
        if (type == ValueType.NONE) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "cannot store a NONE value");
        }
        switch (mode) {
            case VALUE -> bits[i] = ValueType.convert(ValueType.truncate(value, type), type, valueType);
            case VARIANT -> {
                RefObject old = refs[i];
                refs[i] = null;
                tags[i] = (byte) type.value();
                bits[i] = ValueType.truncate(value, type);
                RefObject.release(old);
            }
            case REF -> throw new StatusException(StatusCode.FAILED_PRECONDITION, "list cannot store values");
        }
    }

    /** Stores an i32; see {@link #setValueBits}. */
    public void setI32(int i, int value) {
        setValueBits(i, ValueType.I32, value);
    }

    /** Stores an i64; see {@link #setValueBits}. */
    public void setI64(int i, long value) {
        setValueBits(i, ValueType.I64, value);
    }

    /** Stores an f32; see {@link #setValueBits}. */
    public void setF32(int i, float value) {
        setValueBits(i, ValueType.F32, Float.floatToRawIntBits(value) & 0xFFFF_FFFFL);
    }

    /** Stores an f64; see {@link #setValueBits}. */
    public void setF64(int i, double value) {
        setValueBits(i, ValueType.F64, Double.doubleToRawLongBits(value));
    }

    /**
     * Appends a value (grows by one, then {@link #setValueBits}). On failure the list keeps the
     * new zero element, as IREE's push does.
     */
    public void pushValueBits(ValueType type, long value) {
        int i = count;
        resize(i + 1);
        setValueBits(i, type, value);
    }

    /** Appends an i32; see {@link #pushValueBits}. */
    public void pushI32(int value) {
        pushValueBits(ValueType.I32, value);
    }

    /** Appends an i64; see {@link #pushValueBits}. */
    public void pushI64(long value) {
        pushValueBits(ValueType.I64, value);
    }

    /** Appends an f32; see {@link #pushValueBits}. */
    public void pushF32(float value) {
        pushValueBits(ValueType.F32, Float.floatToRawIntBits(value) & 0xFFFF_FFFFL);
    }

    /** Appends an f64; see {@link #pushValueBits}. */
    public void pushF64(double value) {
        pushValueBits(ValueType.F64, Double.doubleToRawLongBits(value));
    }

    // ---------------------------------------------------------------------------------------------
    // Refs

    private RefObject refSlot(int i) {
        checkIndex(i);
        switch (mode) {
            case REF -> {
                return refs[i];
            }
            case VARIANT -> {
                byte tag = tags[i];
                if (tag != 0 && tag != TAG_REF) {
                    throw new StatusException(StatusCode.FAILED_PRECONDITION,
                            "variant at index " + i + " is not a ref");
                }
                return refs[i];
            }
            default -> throw new StatusException(StatusCode.FAILED_PRECONDITION, "list does not store refs");
        }
    }

    /**
     * Borrows the ref at {@code i} (no count is taken; valid while the list holds it). Null slots
     * and empty variants yield null.
     *
     * @throws StatusException OUT_OF_RANGE for a bad index, FAILED_PRECONDITION for a value list or
     *     a variant holding a value
     */
    public RefObject getRef(int i) {
        return refSlot(i);
    }

    /** Like {@link #getRef} but retains the ref for the caller, who must release it. */
    public RefObject getRefRetain(int i) {
        return RefObject.retain(refSlot(i));
    }

    /** Like {@link #getRef} but moves the list's count to the caller and clears the slot. */
    public RefObject getRefMove(int i) {
        RefObject r = refSlot(i);
        refs[i] = null;
        if (mode == StorageMode.VARIANT) {
            tags[i] = 0;
        }
        return r;
    }

    /**
     * Borrows the ref at {@code i} if it has type {@code type}, else returns null (IREE's
     * {@code get_ref_deref}: a ref of the wrong type, or a value, yields null).
     *
     * @throws StatusException OUT_OF_RANGE for a bad index
     */
    public RefObject getRefAs(int i, RefType type) {
        checkIndex(i);
        if (mode == StorageMode.VALUE || (mode == StorageMode.VARIANT && tags[i] != TAG_REF)) {
            return null;
        }
        RefObject r = refs[i];
        return r != null && type.accepts(r) ? r : null;
    }

    private void setRef(int i, RefObject value, boolean move) {
        checkIndex(i);
        switch (mode) {
            case REF -> refType.check(value);
            case VARIANT -> { }
            default -> throw new StatusException(StatusCode.FAILED_PRECONDITION, "list cannot store refs");
        }
        if (!move) {
            RefObject.retain(value);
        }
        RefObject old = refs[i];
        refs[i] = value;
        if (mode == StorageMode.VARIANT) {
            tags[i] = value == null ? 0 : TAG_REF;
            bits[i] = 0;
        }
        RefObject.release(old);
    }

    /**
     * Stores {@code value} (may be null) at {@code i}, retaining it and releasing the ref replaced.
     *
     * @throws StatusException OUT_OF_RANGE for a bad index, FAILED_PRECONDITION for a value list,
     *     INVALID_ARGUMENT if a ref list's type does not accept it (the list is unchanged)
     */
    public void setRefRetain(int i, RefObject value) {
        setRef(i, value, false);
    }

    /** Like {@link #setRefRetain} but takes over the caller's count instead of retaining. */
    public void setRefMove(int i, RefObject value) {
        setRef(i, value, true);
    }

    /** Appends {@code value}, retaining it; errors as {@link #setRefRetain}. */
    public void pushRefRetain(RefObject value) {
        int i = count;
        resize(i + 1);
        setRefRetain(i, value);
    }

    /** Appends {@code value}, taking over the caller's count; errors as {@link #setRefRetain}. */
    public void pushRefMove(RefObject value) {
        int i = count;
        resize(i + 1);
        setRefMove(i, value);
    }

    /**
     * Removes the first element and returns its ref with the list's count moved to the caller.
     *
     * @throws StatusException OUT_OF_RANGE "cannot pop from an empty list", FAILED_PRECONDITION
     *     as {@link #getRef}
     */
    public RefObject popFrontRefMove() {
        if (count == 0) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "cannot pop from an empty list");
        }
        RefObject r = refSlot(0);
        int n = count - 1;
        if (mode != StorageMode.REF) {
            System.arraycopy(bits, 1, bits, 0, n);
            bits[n] = 0;
        }
        System.arraycopy(refs, 1, refs, 0, n);
        refs[n] = null;
        if (mode == StorageMode.VARIANT) {
            System.arraycopy(tags, 1, tags, 0, n);
            tags[n] = 0;
        }
        count = n;
        return r;
    }

    // ---------------------------------------------------------------------------------------------
    // Variants

    /**
     * Returns element {@code i} as a variant borrowing any ref (no count taken). A value list
     * yields its element type, a ref list a ref variant, a variant list what is stored.
     *
     * @throws StatusException OUT_OF_RANGE for a bad index
     */
    public Variant getVariant(int i) {
        checkIndex(i);
        return switch (mode) {
            case VALUE -> Variant.ofBits(valueType, bits[i]);
            case REF -> Variant.ref(refs[i]);
            case VARIANT -> {
                byte tag = tags[i];
                if (tag == 0) {
                    yield Variant.empty();
                }
                yield tag == TAG_REF ? Variant.ref(refs[i]) : Variant.ofBits(ValueType.fromValue(tag), bits[i]);
            }
        };
    }

    /** Like {@link #getVariant} but retains a ref for the caller. */
    public Variant getVariantRetain(int i) {
        Variant v = getVariant(i);
        RefObject.retain(v.ref());
        return v;
    }

    /** Like {@link #getVariant} but moves a ref's count to the caller and clears the slot. */
    public Variant getVariantMove(int i) {
        Variant v = getVariant(i);
        if (v.isRef() && mode != StorageMode.VALUE) {
            refs[i] = null;
            if (mode == StorageMode.VARIANT) {
                tags[i] = 0;
            }
        }
        return v;
    }

    /**
     * Stores {@code variant} at {@code i}: values as {@link #setValueBits}, refs as
     * {@link #setRefRetain} (retained).
     *
     * @throws StatusException UNIMPLEMENTED for the empty variant, else as the setters
     */
    public void setVariantRetain(int i, Variant variant) {
        if (variant.isValue()) {
            setValueBits(i, variant.valueType(), variant.bits());
        } else if (variant.isRef()) {
            setRefRetain(i, variant.ref());
        } else {
            throw new StatusException(StatusCode.UNIMPLEMENTED, "unhandled variant value type");
        }
    }

    /** Appends {@code variant} (grows by one, then {@link #setVariantRetain}). */
    public void pushVariantRetain(Variant variant) {
        int i = count;
        resize(i + 1);
        setVariantRetain(i, variant);
    }

    // ---------------------------------------------------------------------------------------------
    // Whole-list operations

    /**
     * Returns a new list with this list's element type and elements, retaining every ref. The
     * caller owns the new list's count.
     */
    public VmList cloneList() {
        VmList target = new VmList(mode, valueType, refType);
        target.reserve(count);
        target.count = count;
        if (mode != StorageMode.REF) {
            System.arraycopy(bits, 0, target.bits, 0, count);
        }
        if (mode != StorageMode.VALUE) {
            for (int i = 0; i < count; i++) {
                target.refs[i] = RefObject.retain(refs[i]);
            }
        }
        if (mode == StorageMode.VARIANT) {
            System.arraycopy(tags, 0, target.tags, 0, count);
        }
        return target;
    }

    /** Exchanges element types, storage and sizes with {@code other}. */
    public void swapStorage(VmList other) {
        swapStorageWith(other);
    }

    /**
     * Copies {@code count} elements from {@code src[srcIndex…]} to {@code dst[dstIndex…]},
     * retaining copied refs and releasing replaced ones (IREE's {@code iree_vm_list_copy}). A
     * zero-element copy always succeeds.
     * A variant destination accepts anything; from a variant source every element must have the
     * destination's exact element type; otherwise both lists must have the same element type.
     *
     * @throws StatusException OUT_OF_RANGE if either range exceeds its list's size,
     *     INVALID_ARGUMENT for overlapping ranges of one list or mismatched element types (in which
     *     case nothing is copied)
     */
    public static void copy(VmList src, int srcIndex, VmList dst, int dstIndex, int count) {
        if (count == 0) {
            return; // IREE: a zero-length copy succeeds before any range or type check
        }
        if (count < 0 || srcIndex < 0 || (long) srcIndex + count > src.count) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "source range [" + srcIndex + ", "
                    + ((long) srcIndex + count) + ") of " + count
                    + " elements out of range of source list with size " + src.count);
        }
        if (dstIndex < 0 || (long) dstIndex + count > dst.count) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "destination range [" + dstIndex + ", "
                    + ((long) dstIndex + count) + ") of " + count
                    + " elements out of range of destination list with size " + dst.count);
        }
        if (src == dst && srcIndex + count > dstIndex && dstIndex + count > srcIndex) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "overlapping copy of range ["
                    + srcIndex + ", " + (srcIndex + count) + ") to [" + dstIndex + ", "
                    + (dstIndex + count) + ") of " + count + " elements not supported");
        }
        if (dst.mode == StorageMode.VARIANT) {
            for (int k = 0; k < count; k++) {
                Variant v = src.getVariant(srcIndex + k);
                if (v.isEmpty() || (v.isRef() && v.ref() == null)) {
                    RefObject old = dst.refs[dstIndex + k];
                    dst.refs[dstIndex + k] = null;
                    dst.tags[dstIndex + k] = 0;
                    dst.bits[dstIndex + k] = 0;
                    RefObject.release(old);
                } else {
                    dst.setVariantRetain(dstIndex + k, v);
                }
            }
            return;
        }
        if (src.mode == StorageMode.VARIANT) {
            for (int k = 0; k < count; k++) {
                byte tag = src.tags[srcIndex + k];
                boolean ok = dst.mode == StorageMode.VALUE
                        ? tag == dst.valueType.value()
                        : tag == TAG_REF && src.refs[srcIndex + k].refType().equals(dst.refType);
                if (!ok) {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT,
                            "destination list element type does not match the source element "
                                    + (srcIndex + k));
                }
            }
        } else if (src.mode != dst.mode || src.valueType != dst.valueType
                || !Objects.equals(src.refType, dst.refType)) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "src/dst element type mismatch");
        }
        if (dst.mode == StorageMode.VALUE) {
            System.arraycopy(src.bits, srcIndex, dst.bits, dstIndex, count);
        } else {
            for (int k = 0; k < count; k++) {
                RefObject r = RefObject.retain(src.refs[srcIndex + k]);
                RefObject old = dst.refs[dstIndex + k];
                dst.refs[dstIndex + k] = r;
                RefObject.release(old);
            }
        }
    }

    @Override
    public String toString() {
        String element = switch (mode) {
            case VALUE -> valueType.name().toLowerCase(java.util.Locale.ROOT);
            case REF -> refType.name();
            case VARIANT -> "variant";
        };
        return "vm.list<" + element + ">[" + count + "]";
    }
}
