package dev.ortho.vm;

/**
 * Primitive value types of the VM, with IREE's numbering ({@code iree_vm_value_type_t}).
 *
 * <p>Integers are stored two's-complement; {@link #F32} and {@link #F64} are IEEE-754. Immutable
 * and thread-safe.
 */
public enum ValueType {
    /** No value (an empty variant). */
    NONE(0, 0),
    /** 8-bit integer. */
    I8(1, 1),
    /** 16-bit integer. */
    I16(2, 2),
    /** 32-bit integer. */
    I32(3, 4),
    /** 64-bit integer. */
    I64(4, 8),
    /** 32-bit float. */
    F32(5, 4),
    /** 64-bit float. */
    F64(6, 8);

    private static final ValueType[] BY_VALUE = values();

    private final int value;
    private final int byteSize;

    ValueType(int value, int byteSize) {
        this.value = value;
        this.byteSize = byteSize;
    }

    /** IREE's numeric value of this type. */
    public int value() {
        return value;
    }

    /** Storage size in bytes (0 for {@link #NONE}). */
    public int byteSize() {
        return byteSize;
    }

    /** True for the integer types I8..I64. */
    public boolean isInteger() {
        return this == I8 || this == I16 || this == I32 || this == I64;
    }

    /** True for F32 and F64. */
    public boolean isFloat() {
        return this == F32 || this == F64;
    }

    /**
     * Returns the type with IREE numeric value {@code value}.
     *
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT if no type has that value
     */
    public static ValueType fromValue(int value) {
        if (value < 0 || value >= BY_VALUE.length) {
            throw new dev.ortho.base.StatusException(dev.ortho.base.StatusCode.INVALID_ARGUMENT,
                    "unknown value type " + value);
        }
        return BY_VALUE[value];
    }

    /**
     * Converts {@code bits} (a value of type {@code from} in Ortho's canonical 64-bit encoding)
     * to type {@code to} with IREE's list conversion rules: integers sign-extend or truncate
     * among themselves, F32 and F64 convert to each other, and any integer/float cross conversion
     * (or a conversion from/to NONE) yields zero.
     *
     * <p>Canonical encoding: integers sign-extended to 64 bits, F32 as
     * {@link Float#floatToRawIntBits} in the low 32 bits, F64 as {@link Double#doubleToRawLongBits}.
     */
    public static long convert(long bits, ValueType from, ValueType to) {
        if (from == to) {
            return bits;
        }
        if (from.isInteger() && to.isInteger()) {
            return truncate(bits, to);
        }
        if (from == F32 && to == F64) {
            return Double.doubleToRawLongBits(Float.intBitsToFloat((int) bits));
        }
        if (from == F64 && to == F32) {
            return Float.floatToRawIntBits((float) Double.longBitsToDouble(bits)) & 0xFFFF_FFFFL;
        }
        return 0;
    }

    /** Truncates {@code bits} to an integer {@code type} and sign-extends back to 64 bits. */
    static long truncate(long bits, ValueType type) {
        return switch (type) {
            case I8 -> (byte) bits;
            case I16 -> (short) bits;
            case I32 -> (int) bits;
            case F32 -> bits & 0xFFFF_FFFFL;
            default -> bits;
        };
    }
}
