package dev.ortho.hal.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.hal.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** C {@code %G} formatting, {@code strtod} parsing and IREE's narrow float conversions. */
class FloatTextTest {
    private final Arena arena = Arena.ofConfined();

    @AfterEach
    void close() {
        arena.close();
    }

    private static String g(double v) {
        StringBuilder out = new StringBuilder();
        ElementText.appendG(out, v, false);
        return out.toString();
    }

    private int parse16(int type, String text) {
        MemorySegment s = arena.allocate(2);
        BufferViewText.parseElement(text, type, s, 0);
        return Short.toUnsignedInt(s.get(ValueLayout.JAVA_SHORT_UNALIGNED, 0));
    }

    private int parse8(int type, String text) {
        MemorySegment s = arena.allocate(1);
        BufferViewText.parseElement(text, type, s, 0);
        return Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, 0));
    }

    private String format8(int type, int bits) {
        return BufferViewText.formatElement(arena.allocateFrom(ValueLayout.JAVA_BYTE, (byte) bits),
                0, type);
    }

    @Test
    void percentGUsesSixSignificantDigitsAndSwitchesToExponentForm() {
        assertEquals("0", g(0));
        assertEquals("-0", g(-0.0));
        assertEquals("1", g(1));
        assertEquals("0.1", g(0.1f));
        assertEquals("1.1", g(1.1f));
        assertEquals("0.333333", g(1.0 / 3));
        assertEquals("123456", g(123456));
        assertEquals("1.23457E+06", g(1234567));
        assertEquals("1E+06", g(999999.5));
        assertEquals("999999", g(999999.4));
        assertEquals("100000", g(100000));
        assertEquals("0.0001", g(0.0001));
        assertEquals("1E-05", g(0.00001));
        assertEquals("2.5E-05", g(0.000025));
        assertEquals("1E+10", g(1e10));
        assertEquals("1E+100", g(1e100));
        assertEquals("-1.5E-10", g(-1.5e-10));
        assertEquals("3.40282E+38", g(Float.MAX_VALUE));
        assertEquals("1.4013E-45", g(Float.MIN_VALUE));
        assertEquals("4.94066E-324", g(Double.MIN_VALUE));
        assertEquals("1.79769E+308", g(Double.MAX_VALUE));
        assertEquals("3.14062", g(3.140625), "ties round to even on the exact binary value");
        assertEquals("0.125", g(0.125));
        assertEquals("INF", g(Double.POSITIVE_INFINITY));
        assertEquals("-INF", g(Double.NEGATIVE_INFINITY));
        assertEquals("NAN", g(Double.NaN));
        StringBuilder negativeNan = new StringBuilder();
        ElementText.appendG(negativeNan, Double.NaN, true);
        assertEquals("-NAN", negativeNan.toString());
    }

    @Test
    void floatsParseLikeStrtod() {
        MemorySegment s = arena.allocate(8);
        String[][] f32 = {
            {"1.5", "1.5"}, {".5", "0.5"}, {"5.", "5"}, {"-1.5e-10", "-1.5E-10"},
            {"0x1p3", "8"}, {"0x1.8", "1.5"}, {"-0X.8P1", "-1"}, {"inf", "INF"},
            {"-Infinity", "-INF"}, {"+INF", "INF"}, {"nan", "NAN"}, {"-nan", "-NAN"},
            {"NaN(123)", "NAN"}, {"1e40", "INF"}, {"-1e40", "-INF"}, {"0e-50", "0"},
            {"-0", "-0"}, {"1e-40", "9.99995E-41"}, {"+3", "3"}, {"16777217", "1.67772E+07"},
        };
        for (String[] c : f32) {
            BufferViewText.parseElement(c[0], ElementType.FLOAT_32, s, 0);
            assertEquals(c[1], BufferViewText.formatElement(s, 0, ElementType.FLOAT_32), c[0]);
        }
        BufferViewText.parseElement("1.567890123456789", ElementType.FLOAT_64, s, 0);
        assertEquals(1.567890123456789, s.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0));
        BufferViewText.parseElement("-1.5e-10", ElementType.FLOAT_64, s, 0);
        assertEquals(-1.5e-10, s.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0));
        BufferViewText.parseElement("1e-320", ElementType.FLOAT_64, s, 0);
        assertEquals(1e-320, s.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0));
        BufferViewText.parseElement("-nan", ElementType.FLOAT_64, s, 0);
        assertTrue(s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) < 0, "sign of -nan kept");
        BufferViewText.parseElement("0.1", ElementType.FLOAT_32, s, 0);
        assertEquals(0.1f, s.get(ValueLayout.JAVA_FLOAT_UNALIGNED, 0));
    }

    @Test
    void f16AndBf16RoundToNearestEvenAsIree() {
        assertEquals(0x3FC0, parse16(ElementType.BFLOAT_16, "1.5"));
        assertEquals(0x4049, parse16(ElementType.BFLOAT_16, "3.14159"));
        assertEquals(0x3E00, parse16(ElementType.FLOAT_16, "1.5"));
        assertEquals(0x7BFF, parse16(ElementType.FLOAT_16, "65504"));
        assertEquals(0x7C00, parse16(ElementType.FLOAT_16, "65520"), "rounds up into infinity");
        assertEquals(0xFC00, parse16(ElementType.FLOAT_16, "-1e10"));
        assertEquals(0x7FFF, parse16(ElementType.FLOAT_16, "nan"));
        assertEquals(0x0001, parse16(ElementType.FLOAT_16, "5.96047e-8"), "smallest subnormal");
        assertEquals(0x0000, parse16(ElementType.FLOAT_16, "5.96046e-8"),
                "IREE flushes everything below 2^-24, even what would round up to it");
        assertEquals(0x0000, parse16(ElementType.FLOAT_16, "1e-8"));
        assertEquals(0x0000, parse16(ElementType.FLOAT_16, "1e-40"), "f32 subnormals flush");
        assertEquals(0x8000, parse16(ElementType.FLOAT_16, "-0"));
        assertEquals(0x2E66, parse16(ElementType.FLOAT_16, "0.1"));
        assertEquals(0x0001, parse16(ElementType.BFLOAT_16, "9.2e-41"), "bf16 keeps subnormals");
        assertEquals(0x7F80, parse16(ElementType.BFLOAT_16, "3.4e38"), "rounds up into infinity");
        MemorySegment s = arena.allocate(2);
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED, 0, (short) 0x2E66);
        assertEquals("0.0999756", BufferViewText.formatElement(s, 0, ElementType.FLOAT_16));
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED, 0, (short) 0x0001);
        assertEquals("5.96046E-08", BufferViewText.formatElement(s, 0, ElementType.FLOAT_16));
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED, 0, (short) 0xFE01);
        assertEquals("NAN", BufferViewText.formatElement(s, 0, ElementType.FLOAT_16));
    }

    @Test
    void eightBitFloatsFollowIreeSpecialValueRules() {
        int e4m3fn = ElementType.FLOAT_8_E4M3_FN;
        assertEquals(0x7E, parse8(e4m3fn, "448"));
        assertEquals(0x7F, parse8(e4m3fn, "480"), "rounds onto the NaN encoding");
        assertEquals(0x7F, parse8(e4m3fn, "1000"), "no infinity: overflow is NaN");
        assertEquals(0xFF, parse8(e4m3fn, "-inf"));
        assertEquals("448", format8(e4m3fn, 0x7E));
        assertEquals("NAN", format8(e4m3fn, 0x7F));
        assertEquals("-0.00195312", format8(e4m3fn, 0x81), "smallest subnormal 2^-9");

        int e5m2 = ElementType.FLOAT_8_E5M2;
        assertEquals(0x3E, parse8(e5m2, "1.5"));
        assertEquals(0x7B, parse8(e5m2, "57344"));
        assertEquals(0x7C, parse8(e5m2, "65536"));
        assertEquals("INF", format8(e5m2, 0x7C));
        assertEquals("NAN", format8(e5m2, 0x7D));

        int e5m2fnuz = ElementType.FLOAT_8_E5M2_FNUZ;
        assertEquals(0x80, parse8(e5m2fnuz, "nan"), "NaN is negative zero");
        assertEquals(0x00, parse8(e5m2fnuz, "-0"), "no negative zero");
        assertEquals(0x80, parse8(e5m2fnuz, "1e10"));
        assertEquals("NAN", format8(e5m2fnuz, 0x80));
        assertEquals("57344", format8(e5m2fnuz, 0x7F));

        int e4m3fnuz = ElementType.FLOAT_8_E4M3_FNUZ;
        assertEquals(0x7F, parse8(e4m3fnuz, "240"));
        assertEquals("240", format8(e4m3fnuz, 0x7F));
        assertEquals("-0.25", format8(e4m3fnuz, 0xB0));

        int e8m0 = ElementType.FLOAT_8_E8M0_FNU;
        assertEquals(127, parse8(e8m0, "1"));
        assertEquals(127, parse8(e8m0, "0.75"), "0.75 rounds up to 1");
        assertEquals(126, parse8(e8m0, "0.7"));
        assertEquals(0, parse8(e8m0, "-3"));
        assertEquals(0xFF, parse8(e8m0, "inf"));
        assertEquals(0xFF, parse8(e8m0, "1e39"), "overflows the float: NaN");
        assertEquals(1, parse8(e8m0, "1.2e-38"), "subnormal-range floats keep their exponent");
        assertEquals("5.87747E-39", format8(e8m0, 0));
        assertEquals("1.70141E+38", format8(e8m0, 0xFE));
        assertEquals("NAN", format8(e8m0, 0xFF));
    }
}
