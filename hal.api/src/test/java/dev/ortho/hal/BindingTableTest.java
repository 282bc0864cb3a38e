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
        assertEquals(StatusCode.INVALID_ARGUMENT, assertThrows(StatusException.class,
                () -> BindingTable.wrap(new Buffer[1], new long[1], new long[0])).code());
    }

    /**
     * {@code wrap} takes the arrays (the HAL module's {@code queue.execute.indirect} builds them
     * per call; {@code of} copied all three again). Measured with the thread's allocation counter:
     * a 16-slot {@code of} makes about 440 bytes, {@code wrap} only the table (or nothing).
     */
    @Test
    void wrapTakesTheArraysWithoutCopying() {
        Buffer[] buffers = new Buffer[16];
        long[] offsets = new long[16];
        long[] lengths = new long[16];
        lengths[3] = 64;
        BindingTable table = BindingTable.wrap(buffers, offsets, lengths);
        assertEquals(16, table.size());
        assertEquals(64, table.length(3));
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long best = Long.MAX_VALUE;
        long sink = 0;
        for (int round = 0; round < 10; round++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 10_000; i++) {
                sink += BindingTable.wrap(buffers, offsets, lengths).size();
            }
            best = Math.min(best, (threads.getCurrentThreadAllocatedBytes() - before) / 10_000);
        }
        assertEquals(10 * 10_000 * 16, sink);
        org.junit.jupiter.api.Assertions.assertTrue(best < 64, "wrap allocates " + best + " bytes per call");
    }
}
