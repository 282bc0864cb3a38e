package dev.ortho.hal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ElementTypeTest {

    /** Every named IREE element type with its value and IREE's text name. */
    private static final Map<Integer, String> NAMED = new LinkedHashMap<>();

    static {
        NAMED.put(ElementType.OPAQUE_8, "*8");
        NAMED.put(ElementType.OPAQUE_16, "*16");
        NAMED.put(ElementType.OPAQUE_32, "*32");
        NAMED.put(ElementType.OPAQUE_64, "*64");
        NAMED.put(ElementType.BOOL_8, "i1");
        NAMED.put(ElementType.INT_4, "i4");
        NAMED.put(ElementType.SINT_4, "si4");
        NAMED.put(ElementType.UINT_4, "ui4");
        NAMED.put(ElementType.INT_8, "i8");
        NAMED.put(ElementType.SINT_8, "si8");
        NAMED.put(ElementType.UINT_8, "ui8");
        NAMED.put(ElementType.INT_16, "i16");
        NAMED.put(ElementType.SINT_16, "si16");
        NAMED.put(ElementType.UINT_16, "ui16");
        NAMED.put(ElementType.INT_32, "i32");
        NAMED.put(ElementType.SINT_32, "si32");
        NAMED.put(ElementType.UINT_32, "ui32");
        NAMED.put(ElementType.INT_64, "i64");
        NAMED.put(ElementType.SINT_64, "si64");
        NAMED.put(ElementType.UINT_64, "ui64");
        NAMED.put(ElementType.FLOAT_16, "f16");
        NAMED.put(ElementType.FLOAT_32, "f32");
        NAMED.put(ElementType.FLOAT_64, "f64");
        NAMED.put(ElementType.BFLOAT_16, "bf16");
        NAMED.put(ElementType.COMPLEX_FLOAT_64, "cf64");
        NAMED.put(ElementType.COMPLEX_FLOAT_128, "cf128");
        NAMED.put(ElementType.FLOAT_8_E5M2, "f8E5M2");
        NAMED.put(ElementType.FLOAT_8_E4M3_FN, "f8E4M3FN");
        NAMED.put(ElementType.FLOAT_8_E5M2_FNUZ, "f8E5M2FNUZ");
        NAMED.put(ElementType.FLOAT_8_E4M3_FNUZ, "f8E4M3FNUZ");
        NAMED.put(ElementType.FLOAT_8_E8M0_FNU, "f8E8M0FNU");
    }

    @Test
    void valuesAreNumericalTypeShiftedOverBitCount() {
        assertEquals(0x21000020, ElementType.FLOAT_32);
        assertEquals(0x10000008, ElementType.INT_8);
        assertEquals(0x11000020, ElementType.SINT_32);
        assertEquals(0x12000040, ElementType.UINT_64);
        assertEquals(0x13000008, ElementType.BOOL_8);
        assertEquals(0x22000010, ElementType.BFLOAT_16);
        assertEquals(0x23000080, ElementType.COMPLEX_FLOAT_128);
        assertEquals(0x25000008, ElementType.FLOAT_8_E4M3_FN);
        assertEquals(0x28000008, ElementType.FLOAT_8_E8M0_FNU);
        assertEquals(0x00000040, ElementType.OPAQUE_64);
        assertEquals(0, ElementType.NONE);
    }

    @Test
    void everyNamedTypeFormatsAndParsesAsIree() {
        NAMED.forEach((type, name) -> {
            assertEquals(name, ElementType.format(type));
            assertEquals(type, ElementType.parse(name), name);
        });
        assertEquals(31, NAMED.size());
    }

    @Test
    void parseAcceptsIreeSpellings() {
        assertEquals(ElementType.OPAQUE_64, ElementType.parse("x64"));
        assertEquals(ElementType.make(ElementType.NUMERICAL_TYPE_FLOAT_IEEE, 4),
                ElementType.parse("f4"));
        assertEquals(ElementType.NONE, ElementType.parse("*0"));
        assertEquals(ElementType.make(ElementType.NUMERICAL_TYPE_INTEGER, 255),
                ElementType.parse("i255"));
        assertEquals("*0", ElementType.format(ElementType.NONE));
        assertEquals("*16", ElementType.format(ElementType.make(0x7F, 16)));
    }

    @Test
    void parseRejectsUnknownPrefixesAndBadBitCounts() {
        for (String bad : new String[] {"", "1", "*1234", "i256", "f", "i", "n3", "ff23", "F32",
            "f8e4m3fn", "i-8", "i+8", "i 8", "f32abc", "si", "bf"}) {
            StatusException e = assertThrows(StatusException.class, () -> ElementType.parse(bad),
                    bad);
            assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
            assertTrue(e.getMessage().contains("'" + bad + "'"), e.getMessage());
        }
        assertThrows(StatusException.class, () -> ElementType.parse(null));
        assertThrows(StatusException.class, () -> ElementType.make(0x100, 8));
        assertThrows(StatusException.class, () -> ElementType.make(0x21, 256));
    }

    @Test
    void helpersFollowIreeMacros() {
        assertEquals(ElementType.NUMERICAL_TYPE_FLOAT_IEEE,
                ElementType.numericalType(ElementType.FLOAT_16));
        assertEquals(16, ElementType.bitCount(ElementType.FLOAT_16));
        assertTrue(ElementType.isFloat(ElementType.BFLOAT_16));
        assertTrue(ElementType.isFloat(ElementType.FLOAT_8_E5M2));
        assertTrue(ElementType.isComplexFloat(ElementType.COMPLEX_FLOAT_64));
        assertFalse(ElementType.isInteger(ElementType.FLOAT_32));
        assertTrue(ElementType.isInteger(ElementType.UINT_8));
        assertTrue(ElementType.isInteger(ElementType.BOOL_8));
        assertTrue(ElementType.isBoolean(ElementType.BOOL_8));
        assertFalse(ElementType.isBoolean(ElementType.SINT_8));
        assertTrue(ElementType.isOpaque(ElementType.OPAQUE_32));
        assertFalse(ElementType.isByteAligned(ElementType.INT_4));
        assertEquals(1, ElementType.denseByteCount(ElementType.INT_4));
        assertEquals(2, ElementType.denseByteCount(ElementType.make(0x10, 12)));
        assertEquals(16, ElementType.denseByteCount(ElementType.COMPLEX_FLOAT_128));
        assertEquals(4, ElementType.packedByteCount(ElementType.INT_4, 8));
        assertEquals(2, ElementType.packedByteCount(ElementType.INT_4, 3));
        assertEquals(0, ElementType.packedByteCount(ElementType.FLOAT_32, 0));
        assertEquals(StatusCode.OUT_OF_RANGE, assertThrows(StatusException.class,
                () -> ElementType.packedByteCount(ElementType.FLOAT_64, Long.MAX_VALUE / 4)).code());
        assertThrows(StatusException.class, () -> ElementType.packedByteCount(ElementType.INT_8, -1));
    }
}
