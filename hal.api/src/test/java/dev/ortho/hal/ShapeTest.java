package dev.ortho.hal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import org.junit.jupiter.api.Test;

class ShapeTest {

    @Test
    void parsesIreeShapes() {
        assertArrayEquals(new long[0], Shape.parse(""));
        assertArrayEquals(new long[] {0}, Shape.parse("0"));
        assertArrayEquals(new long[] {1}, Shape.parse("1"));
        assertArrayEquals(new long[] {1, 2}, Shape.parse("1x2"));
        assertArrayEquals(new long[] {1, 2}, Shape.parse(" 1 x 2 "));
        assertArrayEquals(new long[] {1, 2, 3, 4, 5, 6, 7, 8, 9}, Shape.parse("1x2x3x4x5x6x7x8x9"));
        assertArrayEquals(new long[] {Long.MAX_VALUE}, Shape.parse("9223372036854775807"));
        assertArrayEquals(new long[] {8, 10}, Shape.parse("010x10"), "C octal, as strtoll");
    }

    @Test
    void rejectsIreeInvalidShapesNamingTheDimension() {
        for (String bad : new String[] {"abc", "1xf", "1xff23", "1xf32", "x", "x1", "1x", "x1x2",
            "1xx2", "1x2x", "0x-1", "?x2", "9223372036854775808", "08", "1 2", "+"}) {
            StatusException e = assertThrows(StatusException.class, () -> Shape.parse(bad), bad);
            assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
            assertTrue(e.getMessage().contains("'" + bad + "'"), e.getMessage());
        }
        StatusException e = assertThrows(StatusException.class, () -> Shape.parse("4x-1x2"));
        assertTrue(e.getMessage().startsWith("shape[1] invalid value '-1'"), e.getMessage());
    }

    @Test
    void formatsIreeShapes() {
        assertEquals("", Shape.format(new long[0]));
        assertEquals("0", Shape.format(new long[] {0}));
        assertEquals("1x2x3x4x5", Shape.format(new long[] {1, 2, 3, 4, 5}));
        long[] big = new long[19];
        for (int i = 0; i < big.length; i++) {
            big[i] = i + 1;
        }
        assertEquals("1x2x3x4x5x6x7x8x9x10x11x12x13x14x15x16x17x18x19", Shape.format(big));
    }

    @Test
    void elementCountIsTheProductAndChecksOverflow() {
        assertEquals(1, Shape.elementCount(new long[0]));
        assertEquals(0, Shape.elementCount(new long[] {3, 0, 5}));
        assertEquals(24, Shape.elementCount(new long[] {2, 3, 4}));
        assertEquals(StatusCode.OUT_OF_RANGE, assertThrows(StatusException.class,
                () -> Shape.elementCount(new long[] {1L << 32, 1L << 32})).code());
        assertThrows(StatusException.class, () -> Shape.elementCount(new long[] {-1}));
    }
}
