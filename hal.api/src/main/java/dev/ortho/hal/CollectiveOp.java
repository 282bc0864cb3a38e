package dev.ortho.hal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;

/**
 * Collective operations ({@code iree_hal_collective_op_t}): a packed 32-bit value with the kind
 * in bits 0–7, the reduction in bits 8–15 and the element type in bits 16–23, with IREE's enum
 * values. Not instantiable; pure and thread-safe.
 */
public final class CollectiveOp {
    /** Gathers every participant's send buffer into every recv buffer. */
    public static final int KIND_ALL_GATHER = 0;
    /** Reduces every send buffer into every recv buffer. */
    public static final int KIND_ALL_REDUCE = 1;
    /** Scatters each send buffer in pieces to every participant. */
    public static final int KIND_ALL_TO_ALL = 2;
    /** Copies the root's send buffer to every recv buffer. */
    public static final int KIND_BROADCAST = 3;
    /** Reduces every send buffer into the root's recv buffer. */
    public static final int KIND_REDUCE = 4;
    /** Reduces and scatters the result in pieces. */
    public static final int KIND_REDUCE_SCATTER = 5;
    /** Sends to one peer. */
    public static final int KIND_SEND = 6;
    /** Receives from one peer. */
    public static final int KIND_RECV = 7;
    /** Sends to one peer and receives from another. */
    public static final int KIND_SEND_RECV = 8;

    /** No reduction. */
    public static final int REDUCTION_NONE = 0;
    /** Sum. */
    public static final int REDUCTION_SUM = 1;
    /** Product. */
    public static final int REDUCTION_PRODUCT = 2;
    /** Minimum. */
    public static final int REDUCTION_MINIMUM = 3;
    /** Maximum. */
    public static final int REDUCTION_MAXIMUM = 4;
    /** Average. */
    public static final int REDUCTION_AVERAGE = 5;

    /** Element types: IREE's {@code iree_hal_collective_element_type_t} values. */
    public static final int ELEMENT_SINT_8 = 0;
    /** See {@link #ELEMENT_SINT_8}. */
    public static final int ELEMENT_UINT_8 = 1;
    /** See {@link #ELEMENT_SINT_8}. */
    public static final int ELEMENT_SINT_16 = 2;
    /** See {@link #ELEMENT_SINT_8}. */
    public static final int ELEMENT_UINT_16 = 3;
    /** See {@link #ELEMENT_SINT_8}. */
    public static final int ELEMENT_SINT_32 = 4;
    /** See {@link #ELEMENT_SINT_8}. */
    public static final int ELEMENT_UINT_32 = 5;
    /** See {@link #ELEMENT_SINT_8}. */
    public static final int ELEMENT_SINT_64 = 6;
    /** See {@link #ELEMENT_SINT_8}. */
    public static final int ELEMENT_UINT_64 = 7;
    /** See {@link #ELEMENT_SINT_8}. */
    public static final int ELEMENT_FLOAT_16 = 8;
    /** See {@link #ELEMENT_SINT_8}. */
    public static final int ELEMENT_FLOAT_32 = 9;
    /** See {@link #ELEMENT_SINT_8}. */
    public static final int ELEMENT_FLOAT_64 = 10;
    /** See {@link #ELEMENT_SINT_8}. */
    public static final int ELEMENT_BFLOAT_16 = 11;

    private CollectiveOp() {
    }

    /**
     * Packs an operation.
     *
     * @throws StatusException INVALID_ARGUMENT naming the field outside IREE's enum
     */
    public static int pack(int kind, int reduction, int elementType) {
        check("kind", kind, KIND_SEND_RECV);
        check("reduction", reduction, REDUCTION_AVERAGE);
        check("element type", elementType, ELEMENT_BFLOAT_16);
        return kind | reduction << 8 | elementType << 16;
    }

    /** The kind of a packed operation. */
    public static int kind(int op) {
        return op & 0xFF;
    }

    /** The reduction of a packed operation. */
    public static int reduction(int op) {
        return (op >>> 8) & 0xFF;
    }

    /** The element type of a packed operation. */
    public static int elementType(int op) {
        return (op >>> 16) & 0xFF;
    }

    private static void check(String what, int value, int max) {
        if (value < 0 || value > max) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "collective " + what + " " + value
                    + " is outside [0, " + max + "]");
        }
    }
}
