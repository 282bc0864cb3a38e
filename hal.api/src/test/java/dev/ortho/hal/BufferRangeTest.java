package dev.ortho.hal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import org.junit.jupiter.api.Test;

class BufferRangeTest {

    @Test
    void wholeBufferMeansToTheEndAndEmptyRangesAtTheEndAreValid() {
        assertEquals(64, Buffer.calculateRange("r", 64, 0, Buffer.WHOLE_BUFFER));
        assertEquals(16, Buffer.calculateRange("r", 64, 48, Buffer.WHOLE_BUFFER));
        assertEquals(0, Buffer.calculateRange("r", 64, 64, Buffer.WHOLE_BUFFER));
        assertEquals(0, Buffer.calculateRange("r", 64, 64, 0));
        assertEquals(8, Buffer.calculateRange("r", 64, 56, 8));
    }

    @Test
    void rangesPastTheEndAreOutOfRangeNamingRangeAndLength() {
        StatusException e = assertThrows(StatusException.class, () -> Buffer.calculateRange("fill target", 64, 60, 8));
        assertEquals(StatusCode.OUT_OF_RANGE, e.code());
        assertTrue(e.getMessage().contains("fill target") && e.getMessage().contains("[60, 68)")
                && e.getMessage().contains("64"), e.getMessage());
        assertEquals(StatusCode.OUT_OF_RANGE,
                assertThrows(StatusException.class, () -> Buffer.calculateRange("r", 64, 65, 0)).code());
        assertEquals(StatusCode.OUT_OF_RANGE,
                assertThrows(StatusException.class, () -> Buffer.calculateRange("r", 64, -1, 1)).code());
        assertEquals(StatusCode.OUT_OF_RANGE,
                assertThrows(StatusException.class, () -> Buffer.calculateRange("r", 64, 8, Long.MAX_VALUE)).code());
        assertEquals(StatusCode.INVALID_ARGUMENT,
                assertThrows(StatusException.class, () -> Buffer.calculateRange("r", 64, 0, -2)).code());
    }
}
