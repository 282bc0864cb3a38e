package dev.ortho.vm;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.util.Objects;

/**
 * An immutable value that is empty, a primitive of a {@link ValueType}, or a ref (IREE's
 * {@code iree_vm_variant_t}).
 *
 * <p>A variant does not own the ref it carries: whoever creates it decides whether a count is
 * attached (e.g. {@link VmList#getVariantRetain} hands one to the caller). Thread-safe.
 */
public final class Variant {
    private static final Variant EMPTY = new Variant(ValueType.NONE, 0, null, null);

    private final ValueType valueType;
    private final long bits;
    private final RefType refType;
    private final RefObject ref;

    private Variant(ValueType valueType, long bits, RefType refType, RefObject ref) {
        this.valueType = valueType;
        this.bits = bits;
        this.refType = refType;
        this.ref = ref;
    }

    /** The empty variant (no value, no ref). */
    public static Variant empty() {
        return EMPTY;
    }

    /** An i8 value ({@code v} truncated to 8 bits). */
    public static Variant i8(int v) {
        return new Variant(ValueType.I8, (byte) v, null, null);
    }

    /** An i16 value ({@code v} truncated to 16 bits). */
    public static Variant i16(int v) {
        return new Variant(ValueType.I16, (short) v, null, null);
    }

    /** An i32 value. */
    public static Variant i32(int v) {
        return new Variant(ValueType.I32, v, null, null);
    }

    /** An i64 value. */
    public static Variant i64(long v) {
        return new Variant(ValueType.I64, v, null, null);
    }

    /** An f32 value. */
    public static Variant f32(float v) {
        return new Variant(ValueType.F32, Float.floatToRawIntBits(v) & 0xFFFF_FFFFL, null, null);
    }

    /** An f64 value. */
    public static Variant f64(double v) {
        return new Variant(ValueType.F64, Double.doubleToRawLongBits(v), null, null);
    }

    /**
     * A value of {@code type} from Ortho's canonical 64-bit encoding (see
     * {@link ValueType#convert}); integer bits are truncated to the type.
     *
     * @throws StatusException INVALID_ARGUMENT if {@code type} is NONE
     */
    public static Variant ofBits(ValueType type, long bits) {
        if (Objects.requireNonNull(type, "type") == ValueType.NONE) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "a value variant needs a type");
        }
        return new Variant(type, ValueType.truncate(bits, type), null, null);
    }

    /**
     * A ref variant; {@code ref} may be null, which yields a null ref of type {@link RefType#ANY}.
     * No count is taken.
     */
    public static Variant ref(RefObject ref) {
        return new Variant(ValueType.NONE, 0, ref == null ? RefType.ANY : ref.refType(), ref);
    }

    /** True if neither a value nor a ref. */
    public boolean isEmpty() {
        return valueType == ValueType.NONE && refType == null;
    }

    /** True if this holds a primitive value. */
    public boolean isValue() {
        return valueType != ValueType.NONE;
    }

    /** True if this holds a ref (possibly null). */
    public boolean isRef() {
        return refType != null;
    }

    /** The value type; NONE for refs and the empty variant. */
    public ValueType valueType() {
        return valueType;
    }

    /** The ref type for ref variants, else null. */
    public RefType refType() {
        return refType;
    }

    /** The ref for ref variants (may be null), else null. */
    public RefObject ref() {
        return ref;
    }

    /** The value in canonical 64-bit encoding (0 for non-values). */
    public long bits() {
        return bits;
    }

    /** The value converted to i32 with IREE's rules (0 for non-values). */
    public int asI32() {
        return (int) ValueType.convert(bits, valueType, ValueType.I32);
    }

    /** The value converted to i64 with IREE's rules (0 for non-values). */
    public long asI64() {
        return ValueType.convert(bits, valueType, ValueType.I64);
    }

    /** The value converted to f32 with IREE's rules (0 for non-values and integers). */
    public float asF32() {
        return Float.intBitsToFloat((int) ValueType.convert(bits, valueType, ValueType.F32));
    }

    /** The value converted to f64 with IREE's rules (0 for non-values and integers). */
    public double asF64() {
        return Double.longBitsToDouble(ValueType.convert(bits, valueType, ValueType.F64));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Variant v && v.valueType == valueType && v.bits == bits
                && Objects.equals(v.refType, refType) && v.ref == ref;
    }

    @Override
    public int hashCode() {
        return Objects.hash(valueType, bits, refType, System.identityHashCode(ref));
    }

    @Override
    public String toString() {
        if (isRef()) {
            return ref == null ? "null" : refType.name() + "@" + Integer.toHexString(System.identityHashCode(ref));
        }
        return switch (valueType) {
            case NONE -> "(empty)";
            case F32 -> "f32=" + asF32();
            case F64 -> "f64=" + asF64();
            default -> valueType.name().toLowerCase(java.util.Locale.ROOT) + "=" + bits;
        };
    }
}
