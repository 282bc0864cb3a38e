package dev.ortho.hal.text;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.ElementType;
import dev.ortho.hal.EncodingType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Cases re-expressed from IREE's {@code string_util_test.cc}, plus Ortho's own. */
class BufferViewTextTest {
    private final Arena arena = Arena.ofConfined();

    @AfterEach
    void close() {
        arena.close();
    }

    static byte[] bytes(MemorySegment segment) {
        return segment.toArray(ValueLayout.JAVA_BYTE);
    }

    MemorySegment of(byte... values) {
        return arena.allocateFrom(ValueLayout.JAVA_BYTE, values);
    }

    static void assertStatus(StatusCode code, Executable action) {
        assertEquals(code, assertThrows(StatusException.class, action).code());
    }

    // ---- iree_hal_parse_buffer_elements

    @Test
    void parseElementsZeroFillsSplatsAndReadsLists() {
        MemorySegment empty = arena.allocate(0);
        BufferViewText.parseElements("", ElementType.INT_8, 0, empty);
        MemorySegment eight = of(new byte[] {123, 123, 123, 123, 123, 123, 123, 123});
        BufferViewText.parseElements("", ElementType.INT_8, 8, eight);
        assertArrayEquals(new byte[8], bytes(eight));
        BufferViewText.parseElements("3", ElementType.INT_8, 8, eight);
        assertArrayEquals(new byte[] {3, 3, 3, 3, 3, 3, 3, 3}, bytes(eight));
        MemorySegment one = arena.allocate(1);
        BufferViewText.parseElements("2", ElementType.INT_8, 1, one);
        assertArrayEquals(new byte[] {2}, bytes(one));

        MemorySegment i16 = arena.allocate(16);
        BufferViewText.parseElements("0 1 2 3 4 5 6 7", ElementType.INT_16, 8, i16);
        assertArrayEquals(new short[] {0, 1, 2, 3, 4, 5, 6, 7},
                i16.toArray(ValueLayout.JAVA_SHORT_UNALIGNED));
        MemorySegment i32 = arena.allocate(32);
        BufferViewText.parseElements("[0 1 2 3] [4 5 6 7]", ElementType.INT_32, 8, i32);
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 6, 7},
                i32.toArray(ValueLayout.JAVA_INT_UNALIGNED));

        MemorySegment opaque = arena.allocate(6);
        BufferViewText.parseElements("0011 2233 4455", ElementType.OPAQUE_16, 3, opaque);
        assertArrayEquals(new short[] {0x1100, 0x3322, 0x5544},
                opaque.toArray(ValueLayout.JAVA_SHORT_UNALIGNED));
    }

    @Test
    void parseElementsCountMismatchIsOutOfRangeAndBadElementInvalid() {
        assertStatus(StatusCode.OUT_OF_RANGE,
                () -> BufferViewText.parseElements("abc", ElementType.INT_8, 0, arena.allocate(0)));
        assertStatus(StatusCode.INVALID_ARGUMENT,
                () -> BufferViewText.parseElements("abc", ElementType.INT_8, 1, arena.allocate(1)));
        assertStatus(StatusCode.OUT_OF_RANGE,
                () -> BufferViewText.parseElements("1 2 3", ElementType.INT_8, 8, arena.allocate(8)));
        assertStatus(StatusCode.OUT_OF_RANGE, () -> BufferViewText.parseElements("1 2 3 4 5",
                ElementType.INT_8, 4, arena.allocate(4)));
        assertStatus(StatusCode.OUT_OF_RANGE, () -> BufferViewText.parseElements(" ",
                ElementType.INT_8, 4, arena.allocate(4)));
        assertStatus(StatusCode.OUT_OF_RANGE, () -> BufferViewText.parseElements("1",
                ElementType.INT_32, 4, arena.allocate(15)));
    }

    @Test
    void badElementMessageNamesTokenIndexAndPosition() {
        StatusException e = assertThrows(StatusException.class, () -> BufferViewText.parse(
                "4xsi8=1 2 300 4", arena));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertEquals("element '300' is out of range for si8 [-128, 127]; element 2 at character 4 of"
                + " '1 2 300 4'", e.getMessage());
    }

    /** Issue 15: every integer width rejects out-of-range elements and names the range. */
    @Test
    void integerElementsOutsideTheirTypesRangeAreRejectedNamingTheRange() {
        String[][] rejected = {
                {"i8", "256", "[-128, 255]"}, {"i8", "-129", "[-128, 255]"},
                {"si8", "128", "[-128, 127]"}, {"ui8", "-1", "[0, 255]"},
                {"i16", "65536", "[-32768, 65535]"}, {"si16", "-32769", "[-32768, 32767]"},
                {"ui16", "0x10000", "[0, 65535]"},
                {"i32", "99999999999", "[-2147483648, 4294967295]"},
                {"si32", "2147483648", "[-2147483648, 2147483647]"}, {"ui32", "-1", "[0, 4294967295]"},
                {"i64", "9223372036854775808", "[-9223372036854775808, 9223372036854775807]"},
                {"si64", "-9223372036854775809", "[-9223372036854775808, 9223372036854775807]"},
                {"ui64", "18446744073709551616", "[0, 18446744073709551615]"},
        };
        for (String[] c : rejected) {
            StatusException e = assertThrows(StatusException.class,
                    () -> BufferViewText.parse("1x" + c[0] + "=" + c[1], arena), c[0] + " " + c[1]);
            assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
            assertTrue(e.getMessage().startsWith("element '" + c[1] + "' is out of range for " + c[0]
                    + " " + c[2] + ";"), e.getMessage());
        }
        assertEquals("-1", roundTripElement(ElementType.INT_8, "255"));
        assertEquals("-1", roundTripElement(ElementType.INT_32, "4294967295"));
        assertEquals("-9223372036854775808", roundTripElement(ElementType.INT_64, "-9223372036854775808"));
        assertEquals("18446744073709551615", roundTripElement(ElementType.UINT_64, "18446744073709551615"));
    }

    // ---- iree_hal_parse_element / iree_hal_format_element

    private String roundTripElement(int type, String text) {
        MemorySegment segment = arena.allocate(16);
        BufferViewText.parseElement(text, type, segment, 0);
        return BufferViewText.formatElement(segment, 0, type);
    }

    @Test
    void integerElementsParseAcrossTheirRange() {
        assertEquals("-128", roundTripElement(ElementType.SINT_8, "-128"));
        assertEquals("127", roundTripElement(ElementType.SINT_8, "127"));
        assertEquals("255", roundTripElement(ElementType.UINT_8, "255"));
        assertEquals("-1", roundTripElement(ElementType.INT_8, "255"), "signless takes unsigned");
        assertEquals("-32768", roundTripElement(ElementType.SINT_16, "-32768"));
        assertEquals("32767", roundTripElement(ElementType.INT_16, "32767"));
        assertEquals("65535", roundTripElement(ElementType.UINT_16, "65535"));
        assertEquals("-2147483648", roundTripElement(ElementType.INT_32, "-2147483648"));
        assertEquals("2147483647", roundTripElement(ElementType.SINT_32, "2147483647"));
        assertEquals("4294967295", roundTripElement(ElementType.UINT_32, "4294967295"));
        assertEquals("-9223372036854775808",
                roundTripElement(ElementType.INT_64, "-9223372036854775808"));
        assertEquals("9223372036854775807",
                roundTripElement(ElementType.SINT_64, "9223372036854775807"));
        assertEquals("18446744073709551615",
                roundTripElement(ElementType.UINT_64, "18446744073709551615"));
        assertEquals("31", roundTripElement(ElementType.INT_32, "0x1F"), "strtol base 0");
        assertEquals("15", roundTripElement(ElementType.INT_32, "017"), "strtol octal");
        assertEquals("5", roundTripElement(ElementType.UINT_8, "+5"));
        assertEquals("0", roundTripElement(ElementType.UINT_8, "-0"));
    }

    @Test
    void integerElementsOutOfRangeOrMalformedAreInvalidArgument() {
        String[][] cases = {
            {"si8", "255"}, {"si8", "-129"}, {"ui8", "-128"}, {"i8", "256"}, {"i8", "-129"},
            {"si16", "65535"}, {"ui16", "-32768"}, {"i32", "18446744073709551615"},
            {"si32", "2147483648"}, {"ui32", "-9223372036854775808"}, {"ui32", "-1"},
            {"ui32", "4294967296"}, {"i64", "9223372036854775808"},
            {"si64", "-9223372036854775809"}, {"ui64", "18446744073709551616"},
            {"i8", ""}, {"ui8", ""}, {"i16", ""}, {"ui16", ""}, {"i32", ""}, {"ui32", ""},
            {"f32", ""}, {"f64", ""}, {"bf16", ""}, {"i8", "asdfasdf"}, {"ui32", "asdfasdf"},
            {"bf16", "asdfasdf"}, {"f32", "asdfasdf"}, {"f64", "asdfasdf"},
            {"i8", "\uD83C\uDF2E"}, {"i8", "1x"}, {"i8", "08"}, {"i8", "0x"}, {"i8", "--1"},
            {"i32", "1.0"}, {"i32", "\u0661"}, {"f32", "1.5f"}, {"f32", "1e"}, {"f32", "e5"},
            {"f32", "0x"}, {"f32", "1,5"}, {"f32", "1e-50"}, {"f64", "1e-400"},
            {"f16", "1e-50"}, {"f32", "infinit"}, {"f32", "nan("},
        };
        for (String[] c : cases) {
            int type = ElementType.parse(c[0]);
            StatusException e = assertThrows(StatusException.class,
                    () -> BufferViewText.parseElement(c[1], type, arena.allocate(8), 0),
                    c[0] + " " + c[1]);
            assertEquals(StatusCode.INVALID_ARGUMENT, e.code(), c[0] + " " + c[1]);
            assertTrue(e.getMessage().contains("'" + c[1] + "'"), e.getMessage());
        }
    }

    @Test
    void opaqueElementsAreHexInMemoryOrder() {
        MemorySegment segment = arena.allocate(8);
        BufferViewText.parseElement("FF", ElementType.OPAQUE_8, segment, 0);
        assertEquals((byte) 0xFF, segment.get(ValueLayout.JAVA_BYTE, 0));
        BufferViewText.parseElement("FFCD", ElementType.OPAQUE_16, segment, 0);
        assertEquals((short) 0xCDFF, segment.get(ValueLayout.JAVA_SHORT_UNALIGNED, 0));
        BufferViewText.parseElement("FFCDAABB", ElementType.OPAQUE_32, segment, 0);
        assertEquals(0xBBAACDFF, segment.get(ValueLayout.JAVA_INT_UNALIGNED, 0));
        BufferViewText.parseElement("FFCDAABBCCDDEEFF", ElementType.OPAQUE_64, segment, 0);
        assertEquals(0xFFEEDDCCBBAACDFFL, segment.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        BufferViewText.parseElement("ab", ElementType.OPAQUE_8, segment, 0);
        assertEquals((byte) 0xAB, segment.get(ValueLayout.JAVA_BYTE, 0));

        assertStatus(StatusCode.INVALID_ARGUMENT, () -> BufferViewText.parseElement("",
                ElementType.OPAQUE_8, arena.allocate(0), 0));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> BufferViewText.parseElement("FF",
                ElementType.OPAQUE_8, arena.allocate(0), 0));
        for (String bad : new String[] {"", "F", "FFC", "ZZ", "0x"}) {
            assertStatus(StatusCode.INVALID_ARGUMENT,
                    () -> BufferViewText.parseElement(bad, ElementType.OPAQUE_8, segment, 0));
        }

        segment.set(ValueLayout.JAVA_BYTE, 0, (byte) 129);
        assertEquals("81", BufferViewText.formatElement(segment, 0, ElementType.OPAQUE_8));
        segment.set(ValueLayout.JAVA_SHORT_UNALIGNED, 0, (short) -12345);
        assertEquals("C7CF", BufferViewText.formatElement(segment, 0, ElementType.OPAQUE_16));
        segment.set(ValueLayout.JAVA_INT_UNALIGNED, 0, 0);
        assertEquals("00000000", BufferViewText.formatElement(segment, 0, ElementType.OPAQUE_32));
        segment.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0x8899AABBCCDDEEFFL);
        assertEquals("FFEEDDCCBBAA9988",
                BufferViewText.formatElement(segment, 0, ElementType.OPAQUE_64));
    }

    @Test
    void formatElementMatchesIreeExpectations() {
        MemorySegment s = arena.allocate(8);
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED, 0, (short) 0x3FC0);
        assertEquals("1.5", BufferViewText.formatElement(s, 0, ElementType.BFLOAT_16));
        s.set(ValueLayout.JAVA_FLOAT_UNALIGNED, 0, 1.5f);
        assertEquals("1.5", BufferViewText.formatElement(s, 0, ElementType.FLOAT_32));
        s.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0, 1123.56789456789);
        assertEquals("1123.57", BufferViewText.formatElement(s, 0, ElementType.FLOAT_64));
        s.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0, -1.5e-10);
        assertEquals("-1.5E-10", BufferViewText.formatElement(s, 0, ElementType.FLOAT_64));
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, -1L);
        assertEquals("18446744073709551615", BufferViewText.formatElement(s, 0, ElementType.UINT_64));
        assertEquals("-1", BufferViewText.formatElement(s, 0, ElementType.INT_64));
        assertEquals("4294967295", BufferViewText.formatElement(s, 1, ElementType.UINT_32));
        assertEquals("65535", BufferViewText.formatElement(s, 3, ElementType.UINT_16));
        assertEquals("-1", BufferViewText.formatElement(s, 7, ElementType.SINT_8));
        assertStatus(StatusCode.OUT_OF_RANGE,
                () -> BufferViewText.formatElement(s, 8, ElementType.INT_8));
        assertStatus(StatusCode.OUT_OF_RANGE,
                () -> BufferViewText.formatElement(s, -1, ElementType.INT_8));
        assertStatus(StatusCode.INVALID_ARGUMENT,
                () -> BufferViewText.formatElement(s, 0, ElementType.NONE));
    }

    // ---- iree_hal_format_buffer_elements

    @Test
    void formatElementsNestsOuterDimensions() {
        MemorySegment one = of((byte) 1);
        assertEquals("1", BufferViewText.formatElements(one, new long[0], ElementType.INT_8, 99));
        assertEquals("1", BufferViewText.formatElements(one, new long[] {1}, ElementType.INT_8, 99));
        MemorySegment four = of((byte) 1, (byte) 2, (byte) 3, (byte) 4);
        assertEquals("1 2 3 4", BufferViewText.format(four, new long[] {4}, ElementType.INT_8)
                .substring(5));
        assertEquals("2x2xi8=[1 2][3 4]", BufferViewText.format(four, new long[] {2, 2},
                ElementType.INT_8));
        assertEquals("4x1xi8=[1][2][3][4]", BufferViewText.format(four, new long[] {4, 1},
                ElementType.INT_8));
        assertEquals("1x2x2xi8=[[1 2][3 4]]", BufferViewText.format(four, new long[] {1, 2, 2},
                ElementType.INT_8));
        assertEquals("0xi8=", BufferViewText.format(arena.allocate(0), new long[] {0},
                ElementType.INT_8));
        assertEquals("2x0xi8=[][]", BufferViewText.format(arena.allocate(0), new long[] {2, 0},
                ElementType.INT_8));

        MemorySegment many = arena.allocate(ValueLayout.JAVA_INT, 300);
        many.fill((byte) 0);
        for (int i = 0; i < 300; i++) {
            many.setAtIndex(ValueLayout.JAVA_INT, i, -99);
        }
        assertEquals("[-99 -99 -99]".repeat(100),
                BufferViewText.formatElements(many, new long[] {100, 3}, ElementType.INT_32,
                        Long.MAX_VALUE));
    }

    @Test
    void formatElementsElidesPastTheMaximum() {
        MemorySegment one = of((byte) 1);
        long[] scalar = {};
        assertEquals("...", BufferViewText.formatElements(one, scalar, ElementType.INT_8, 0));
        assertEquals("1", BufferViewText.formatElements(one, scalar, ElementType.INT_8, 1));
        assertEquals("1", BufferViewText.formatElements(one, scalar, ElementType.INT_8, 99123));
        MemorySegment four = of((byte) 1, (byte) 2, (byte) 3, (byte) 4);
        long[] vector = {4};
        assertEquals("...", BufferViewText.formatElements(four, vector, ElementType.INT_8, 0));
        assertEquals("1...", BufferViewText.formatElements(four, vector, ElementType.INT_8, 1));
        assertEquals("1 2 3...", BufferViewText.formatElements(four, vector, ElementType.INT_8, 3));
        assertEquals("1 2 3 4", BufferViewText.formatElements(four, vector, ElementType.INT_8, 99123));
        long[] matrix = {2, 2};
        assertEquals("[...][...]", BufferViewText.formatElements(four, matrix, ElementType.INT_8, 0));
        assertEquals("[1...][...]", BufferViewText.formatElements(four, matrix, ElementType.INT_8, 1));
        assertEquals("[1 2][3...]", BufferViewText.formatElements(four, matrix, ElementType.INT_8, 3));
        assertEquals("[1 2][3 4]", BufferViewText.formatElements(four, matrix, ElementType.INT_8,
                99123));
        assertEquals("4xi8=1 2...", BufferViewText.format(four, vector, ElementType.INT_8, 2));
        // A truncated rank-1 view needs only the bytes it prints, as IREE.
        assertEquals("1000xi8=1 2...", BufferViewText.format(four, new long[] {1000},
                ElementType.INT_8, 2));
    }

    @Test
    void formatRejectsShortContentsAndBadArguments() {
        MemorySegment four = of((byte) 1, (byte) 2, (byte) 3, (byte) 4);
        assertStatus(StatusCode.OUT_OF_RANGE,
                () -> BufferViewText.format(four, new long[] {5}, ElementType.INT_8));
        assertStatus(StatusCode.OUT_OF_RANGE,
                () -> BufferViewText.format(four, new long[] {3, 2}, ElementType.INT_8, 1));
        assertStatus(StatusCode.OUT_OF_RANGE,
                () -> BufferViewText.format(four, new long[] {2}, ElementType.FLOAT_32));
        assertStatus(StatusCode.OUT_OF_RANGE, () -> BufferViewText.format(four,
                new long[] {1L << 40, 1L << 40}, ElementType.INT_8));
        assertStatus(StatusCode.INVALID_ARGUMENT,
                () -> BufferViewText.format(four, new long[] {4}, ElementType.INT_8, -1));
        assertStatus(StatusCode.INVALID_ARGUMENT,
                () -> BufferViewText.format(four, new long[] {4}, ElementType.NONE));
    }

    @Test
    void formatOfAnEmptyViewWithHugeOuterDimensionsFailsBeforeBuildingTheText() {
        // Found by BufferViewTextFuzzTest: "90000000001x00000000x3xf16=" parses to zero bytes,
        // and its text would be 9e10 pairs of brackets (an OutOfMemoryError before the fix).
        MemorySegment none = MemorySegment.ofArray(new byte[0]);
        StatusException e = assertThrows(StatusException.class, () -> BufferViewText.format(none,
                new long[] {90_000_000_001L, 0, 3}, ElementType.FLOAT_16));
        assertEquals(StatusCode.RESOURCE_EXHAUSTED, e.code());
        assertTrue(e.getMessage().contains("90000000001x0x3xf16"), e.getMessage());
        assertTrue(e.getMessage().contains("180000000002 characters"), e.getMessage());
        assertEquals("2x0x3xf16=[][]", BufferViewText.format(none, new long[] {2, 0, 3}, ElementType.FLOAT_16));
    }

    // ---- iree_hal_buffer_view_parse

    @Test
    void parseBufferViewsAsIree() {
        assertArrayEquals(new byte[] {0}, bytes(BufferViewText.parse("i8", arena).contents()));
        assertArrayEquals(new byte[4], bytes(BufferViewText.parse("2x2xi8=", arena).contents()));
        assertArrayEquals(new byte[] {3, 3, 3, 3},
                bytes(BufferViewText.parse("2x2xi8=3", arena).contents()));
        assertArrayEquals(new byte[] {1, 2, 3, 4},
                bytes(BufferViewText.parse("2x2xi8=1 2 3 4", arena).contents()));
        BufferViewText.Parsed spaced = BufferViewText.parse("  2x2xi8 =  1,\n2 3\t,4", arena);
        assertArrayEquals(new byte[] {1, 2, 3, 4}, bytes(spaced.contents()));
        assertEquals(new BufferViewText.Header(new long[] {2, 2}, ElementType.INT_8,
                EncodingType.DENSE_ROW_MAJOR), spaced.header());
        BufferViewText.Parsed nested = BufferViewText.parse("4xi16=[[0][1][2]][3]", arena);
        assertArrayEquals(new short[] {0, 1, 2, 3},
                nested.contents().toArray(ValueLayout.JAVA_SHORT_UNALIGNED));
        assertArrayEquals(new byte[] {1, 2, 3, 4},
                bytes(BufferViewText.parse("4xi8=1,2,3,4", arena).contents()));
        assertArrayEquals(new byte[] {7, 8},
                bytes(BufferViewText.parse(" \"2xui8=7 8\"\n", arena).contents()));
        assertEquals(0, BufferViewText.parse("f32=1", arena).contents().address() % 64);
    }

    @Test
    void parseInvalidBufferViewsAsIree() {
        for (String bad : new String[] {"", "  ", "\"\"", "asdf", "9x8=", "=4", "0", "=", "abc",
            "1xf", "1xff23", "1xn3", "x", "x1", "1x", "x1x2=", "1xx2", "1x2x", "0x-1",
            "2x2xf32=1 2 3 zz", "*0=", "2x2x?=1"}) {
            StatusException e = assertThrows(StatusException.class,
                    () -> BufferViewText.parse(bad, arena), bad);
            assertEquals(StatusCode.INVALID_ARGUMENT, e.code(), bad + ": " + e);
        }
        assertStatus(StatusCode.OUT_OF_RANGE, () -> BufferViewText.parse("2x4xi32=5 3", arena));
        assertStatus(StatusCode.OUT_OF_RANGE,
                () -> BufferViewText.parse("1000000000000x1000000000000xf32=", arena));
        assertStatus(StatusCode.RESOURCE_EXHAUSTED,
                () -> BufferViewText.parse("100000000000000000xi8=", arena));
        assertStatus(StatusCode.RESOURCE_EXHAUSTED,
                () -> BufferViewText.parse("1x".repeat(129) + "i8=1", arena));
        assertEquals(128, BufferViewText.parseHeader("1x".repeat(128) + "i8").shape().length);
    }

    @Test
    void parseHeaderIgnoresTheElements() {
        BufferViewText.Header header =
                BufferViewText.parseHeader("1x2x3x4x5x6x7x8x9xi32=invalid stuff here");
        assertArrayEquals(new long[] {1, 2, 3, 4, 5, 6, 7, 8, 9}, header.shape());
        assertEquals(ElementType.INT_32, header.elementType());
        assertEquals(EncodingType.DENSE_ROW_MAJOR, header.encodingType());
        assertEquals(362880 * 4L, header.byteLength());
        assertEquals("1x2x3x4x5x6x7x8x9xi32", header.toString());
        assertEquals("f32", BufferViewText.parseHeader("f32").toString());
    }

    @Test
    void parseIntoACallerSegmentWritesOnlyTheContents() {
        MemorySegment destination = arena.allocate(8).fill((byte) 0x55);
        BufferViewText.Parsed parsed = BufferViewText.parse("2xsi16=-2 3", destination);
        assertEquals(4, parsed.contents().byteSize());
        assertArrayEquals(new byte[] {-2, -1, 3, 0, 0x55, 0x55, 0x55, 0x55}, bytes(destination));
        assertStatus(StatusCode.OUT_OF_RANGE,
                () -> BufferViewText.parse("3xf64=1", destination));
        assertStatus(StatusCode.PERMISSION_DENIED,
                () -> BufferViewText.parse("2xi8=1", destination.asReadOnly()));
    }

    // ---- round trips (IREE's RoundTrip test and more)

    @Test
    void parseThenFormatReproducesTheText() {
        String[] texts = {
            "i8=-8", "si8=-8", "ui8=239", "4xi8=0 -1 2 3", "4xsi8=0 -1 2 3", "4xi16=0 -1 2 3",
            "4xui16=0 1 2 3", "2x2xi32=[0 1][2 3]", "4xf16=0 0.5 2 3", "4xf32=0 1.1 2 3",
            "4xf64=0 1.1 2 3", "1x2x3xi8=[[0 1 2][3 4 5]]", "2x*16=AABB CCDD",
            "100x3xi16=" + "[-99 -99 -99]".repeat(100),
            "f32=1", "2x2xf32=[1 2][3 4]", "3xbf16=1.5 -2 0.333984", "2xi1=01 00",
            "ui64=18446744073709551615", "si64=-9223372036854775808", "cf64=0000803F00000040",
            "3xf32=INF -INF NAN", "2xf32=-NAN -0", "2xf64=1E+100 4.94066E-324",
            "4xf8E4M3FN=448 -0.5 NAN 0.015625", "2xf8E5M2=57344 -INF", "2xf8E5M2FNUZ=NAN 1.5",
            "2xf8E4M3FNUZ=240 -0.25", "3xf8E8M0FNU=1 0.5 NAN",
            "2x2x2xi8=[[1 2][3 4]][[5 6][7 8]]", "0x3xf32=", "3x0xf32=[][][]",
        };
        for (String text : texts) {
            BufferViewText.Parsed parsed = BufferViewText.parse(text, arena);
            assertEquals(text, BufferViewText.format(parsed.contents(), parsed.header().shape(),
                    parsed.header().elementType()));
        }
    }

    @Test
    void subByteElementsArePackedAndWrittenAsHex() {
        BufferViewText.Parsed parsed = BufferViewText.parse("4xi4=01 02 03 0F", arena);
        assertArrayEquals(new byte[] {0x21, (byte) 0xF3}, bytes(parsed.contents()));
        assertEquals("4xi4=01 02 03 0F", BufferViewText.format(parsed.contents(),
                new long[] {4}, ElementType.INT_4));
        assertArrayEquals(new byte[] {(byte) 0xAA, 0x0A},
                bytes(BufferViewText.parse("3xui4=0A", arena).contents()));
        BufferViewText.Parsed odd = BufferViewText.parse("2xi12=FF0F 3402", arena);
        assertArrayEquals(new byte[] {(byte) 0xFF, 0x4F, 0x23}, bytes(odd.contents()));
        assertEquals("2xi12=FF0F 3402",
                BufferViewText.format(odd.contents(), new long[] {2}, odd.header().elementType()));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> BufferViewText.parse("2xi4=10 01", arena));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> BufferViewText.parse("i12=3412", arena));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> BufferViewText.parse("2xi4=1 2", arena));
    }
}
