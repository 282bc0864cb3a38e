package dev.ortho.hal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import org.junit.jupiter.api.Test;

class BindingTableTest {

    @Test
    void slotsOutsideTheTableAreOutOfRangeNotAnIndexException() {
        BindingTable table = BindingTable.of(new Buffer[] {null}, new long[] {16}, new long[] {32});
        assertNull(table.buffer(0));
        assertEquals(16, table.offset(0));
        assertEquals(32, table.length(0));
        StatusException e = assertThrows(StatusException.class, () -> table.buffer(1));
        assertEquals(StatusCode.OUT_OF_RANGE, e.code());
        assertEquals("binding table slot 1 is outside [0, 1)", e.getMessage());
        assertEquals(StatusCode.OUT_OF_RANGE, assertThrows(StatusException.class, () -> table.length(-1)).code());
        assertEquals(StatusCode.OUT_OF_RANGE,
                assertThrows(StatusException.class, () -> BindingTable.empty().offset(0)).code());
    }

    @Test
    void mismatchedArraysAreInvalidArgument() {
        assertEquals(StatusCode.INVALID_ARGUMENT, assertThrows(StatusException.class,
                () -> BindingTable.of(new Buffer[1], new long[2], new long[1])).code());
    }
}
