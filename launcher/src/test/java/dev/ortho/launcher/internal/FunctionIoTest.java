package dev.ortho.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.vm.VmList;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link FunctionIo}: every input syntax and its errors, result formatting and comparison. */
class FunctionIoTest {
    private final Device device = HalPrograms.registry().createDevice("local-sync");

    @AfterEach
    void closeDevice() {
        device.close();
    }

    private String roundTrip(String cconv, String... specs) {
        try (FunctionIo io = new FunctionIo(device, false)) {
            VmList list = io.parse(cconv, List.of(specs));
            try {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                FunctionIo.print(list, FunctionIo.DEFAULT_MAX_ELEMENTS,
                        new PrintStream(bytes, true, StandardCharsets.UTF_8));
                return bytes.toString(StandardCharsets.UTF_8);
            } finally {
                list.release();
            }
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "r | 2x2xf32=1 2 3 4 | 2x2xf32=[1 2][3 4]",
        "r | 2x2xi32=[[1 2][3 4]] | 2x2xi32=[1 2][3 4]",
        "r | '  4xi8=1,2,3,4  ' | 4xi8=1 2 3 4",
        "r | 2x3xf32=7 | 2x3xf32=[7 7 7][7 7 7]",
        "r | f32=2.5 | f32=2.5",
        "r | 0x4xf32 | 0x4xf32=",
        "i | 0x10 | i32=16",
        "I | -5000000000 | i64=-5000000000",
        "f | -3.14 | f32=-3.14",
        "F | 1e300 | f64=1e+300",
        "i | (null) | i32=0",
        "r | (null) | (null)",
    })
    void inputSyntaxes(String cconv, String spec, String printed) {
        String expected = printed.startsWith("(null)") || !cconv.equals("r") ? printed : "hal.buffer_view\n" + printed;
        assertEquals("result[0]: " + expected + "\n", roundTrip(cconv, spec));
    }

    @Test
    void storageInputsPassTheBuffer() {
        assertEquals("result[0]: hal.buffer\n(no printer)\n", roundTrip("r", "&4xf32=1"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "r | 2x2xf32=1 2 3 | OUT_OF_RANGE",
        "r | 2x2xq32=1 | INVALID_ARGUMENT",
        "r | 2xyxf32=1 | INVALID_ARGUMENT",
        "r | -1x2xf32=1 | INVALID_ARGUMENT",
        "r | 2x2xf32=1 x 3 4 | INVALID_ARGUMENT",
        "r | 5 | INVALID_ARGUMENT",
        "i | 2xf32=1 | INVALID_ARGUMENT",
        "i | nope | INVALID_ARGUMENT",
        "'' | 1 | INVALID_ARGUMENT",
        "r | @missing.npy | NOT_FOUND",
        "r | @file.txt | UNIMPLEMENTED",
        "r | 2xf32=@missing.bin | NOT_FOUND",
    })
    void inputErrorsAreStatusExceptionsNamingTheInput(String cconv, String spec, StatusCode code) {
        StatusException e = assertThrows(StatusException.class, () -> roundTrip(cconv, spec));
        assertEquals(code, e.code(), e.getMessage());
        assertTrue(e.getMessage().contains("parsing input `" + spec.strip() + "`"), e.getMessage());
    }

    /** Issue 15: {@code --input=99999999999} for an i32 wrapped to 1215752191 silently. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "99999999999 | i32 | [-2147483648, 4294967295]",
        "4294967296 | i32 | [-2147483648, 4294967295]",
        "-2147483649 | i32 | [-2147483648, 4294967295]",
        "0x100000000 | i32 | [-2147483648, 4294967295]",
        "9223372036854775808 | i64 | [-9223372036854775808, 9223372036854775807]",
        "-9223372036854775809 | i64 | [-9223372036854775808, 9223372036854775807]",
    })
    void integerInputsOutsideTheTypesRangeAreRejected(String text, String type, String range) {
        String cconv = "i" + (type.equals("i32") ? "i" : "I");
        StatusException e = assertThrows(StatusException.class, () -> roundTrip(cconv, "1", text));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code(), e.getMessage());
        assertTrue(e.getMessage().startsWith("parsing value `" + text + "` as " + type
                + " (input 1): outside " + range + "; parsing input `" + text + "`"), e.getMessage());
    }

    @Test
    void integerInputsAtTheEndsOfTheRangeAreAccepted() {
        assertEquals("result[0]: i32=-1\n", roundTrip("i", "4294967295"));
        assertEquals("result[0]: i32=-2147483648\n", roundTrip("i", "-2147483648"));
        assertEquals("result[0]: i64=-9223372036854775808\n", roundTrip("I", "-9223372036854775808"));
        assertEquals("result[0]: i64=9223372036854775807\n", roundTrip("I", "0x7fffffffffffffff"));
    }

    @Test
    void hugeShapesFailWithoutExhaustingTheHeap(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws java.io.IOException {
        for (String spec : new String[] {"100000x100000x100000xf32=1", "9223372036854775807x2xf32=1"}) {
            StatusException e = assertThrows(StatusException.class, () -> roundTrip("r", spec));
            assertTrue(e.getMessage().contains("parsing input `" + spec + "`"), e.getMessage());
        }
        java.nio.file.Path bin = java.nio.file.Files.write(dir.resolve("small.bin"), new byte[8]);
        StatusException e = assertThrows(StatusException.class, () -> roundTrip("r", "100000x100000xf32=@" + bin));
        assertEquals(StatusCode.OUT_OF_RANGE, e.code(), e.getMessage());
        assertTrue(e.getMessage().contains("has 8 bytes left but the buffer view needs 40000000000"), e.getMessage());
    }

    @Test
    void readingPastTheLastNpyArrayIsEndOfFile(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws java.io.IOException {
        java.nio.file.Path npy = dir.resolve("one.npy");
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            java.nio.file.Files.write(npy, NpyFile.encode(new long[] {2}, dev.ortho.hal.ElementType.SINT_32,
                    arena.allocateFrom(java.lang.foreign.ValueLayout.JAVA_INT, 1, 2)));
        }
        assertEquals("result[0]: hal.buffer_view\n2xsi32=1 2\nresult[1]: hal.buffer_view\n2xsi32=1 2\n",
                roundTrip("rr", "@" + npy, "@" + npy), "@ starts over");
        StatusException e = assertThrows(StatusException.class, () -> roundTrip("rr", "@" + npy, "+" + npy));
        assertEquals(StatusCode.OUT_OF_RANGE, e.code());
        assertTrue(e.getMessage().contains("end-of-file") && e.getMessage().contains("parsing input `+"),
                e.getMessage());
    }

    @Test
    void emptyInputIsRejected() {
        StatusException e = assertThrows(StatusException.class, () -> roundTrip("i", " "));
        assertTrue(e.getMessage().contains("no value specified for input"), e.getMessage());
    }

    @Test
    void parsedInputsAreFreedWithTheirList() {
        long before = device.allocator().statistics().bytesLive();
        roundTrip("rr", "1024xf32=1", "&16xi8=0");
        assertEquals(before, device.allocator().statistics().bytesLive(), "no buffer outlives the list");
    }

    @Test
    void comparisonFollowsIreeTolerances() {
        assertTrue(FunctionIo.fuzzy(1.00005, 1.0, 1e-4, 0));
        assertFalse(FunctionIo.fuzzy(1.0002, 1.0, 1e-4, 0));
        assertTrue(FunctionIo.fuzzy(1000.005, 1000, 0, 1e-5));
        assertTrue(FunctionIo.fuzzy(Double.NaN, Double.NaN, 0, 0));
        assertFalse(FunctionIo.fuzzy(1, Double.POSITIVE_INFINITY, 1, 1));
        assertTrue(FunctionIo.fuzzy(Double.NEGATIVE_INFINITY, Double.NEGATIVE_INFINITY, 0, 0));
    }

    @Test
    void scalarMismatchesAndTypeMismatchesAreReportedAsIree() {
        VmList expected = VmList.ofVariants(3);
        VmList actual = VmList.ofVariants(3);
        try {
            expected.pushI32(5);
            actual.pushI32(6);
            expected.pushF32(1.5f);
            actual.pushF32(2.5f);
            expected.pushI64(1);
            actual.pushF64(1);
            StringBuilder report = new StringBuilder();
            assertFalse(FunctionIo.compare(expected, actual, FunctionIo.Tolerance.DEFAULT, report));
            assertEquals("[FAILED] result[0]: i32 values differ\n  expected: 5\n  actual: 6\n"
                    + "[FAILED] result[1]: f32 values differ\n  expected: 1.5\n  actual: 2.5\n"
                    + "[FAILED] result[2]: variant types mismatch; expected i64 but got f64\n", report.toString());
            expected.resize(0);
            report.setLength(0);
            assertFalse(FunctionIo.compare(expected, actual, FunctionIo.Tolerance.DEFAULT, report));
            assertEquals("[FAILED] expected 0 list elements but 3 provided\n", report.toString());
            expected.resize(1); // an empty variant, as (ignored) parses
            actual.resize(1);
            assertTrue(FunctionIo.compare(expected, actual, FunctionIo.Tolerance.DEFAULT, new StringBuilder()),
                    "an empty expectation ((ignored)) matches anything");
        } finally {
            expected.release();
            actual.release();
        }
    }
}
