package dev.ortho.hal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import org.junit.jupiter.api.Test;

class CollectiveOpTest {

    @Test
    void packsKindReductionAndElementTypeAsIreesUnion() {
        int op = CollectiveOp.pack(CollectiveOp.KIND_ALL_REDUCE, CollectiveOp.REDUCTION_SUM, CollectiveOp.ELEMENT_FLOAT_32);
        assertEquals(0x00090101, op);
        assertEquals(CollectiveOp.KIND_ALL_REDUCE, CollectiveOp.kind(op));
        assertEquals(CollectiveOp.REDUCTION_SUM, CollectiveOp.reduction(op));
        assertEquals(CollectiveOp.ELEMENT_FLOAT_32, CollectiveOp.elementType(op));
        assertEquals(0x000B0508, CollectiveOp.pack(CollectiveOp.KIND_SEND_RECV, CollectiveOp.REDUCTION_AVERAGE,
                CollectiveOp.ELEMENT_BFLOAT_16));
    }

    @Test
    void valuesOutsideIreesEnumsAreInvalidArgumentNamingTheField() {
        StatusException e = assertThrows(StatusException.class, () -> CollectiveOp.pack(9, 0, 0));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("kind 9"), e.getMessage());
        assertTrue(assertThrows(StatusException.class, () -> CollectiveOp.pack(0, 6, 0)).getMessage().contains("reduction 6"));
        assertTrue(assertThrows(StatusException.class, () -> CollectiveOp.pack(0, 0, 12)).getMessage()
                .contains("element type 12"));
    }
}
