package dev.ortho.hal.text;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ortho.base.StatusException;
import dev.ortho.hal.ElementType;
import dev.ortho.hal.MemoryType;
import dev.ortho.hal.Shape;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Seeded random input: parsers answer only with StatusException; formatting is stable. */
class BufferViewTextFuzzTest {
    private static final String ALPHABET = "0123456789xX*ifsubcE.+-=[], \t\n\"eEpPnNaAIF?\u00e9";
    private static final String[] SEEDS = {
        "2x2xf32=[1 2][3 4]", "4xi8=1,2,3,4", "f32=1", "2x*16=AABB CCDD", "3xbf16=1.5 -2 0.3",
        "4xi4=01 02 03 0F", "2xf8E4M3FN=448 NAN", "ui64=18446744073709551615", "2xi1=01 00",
    };

    private static String mutate(Random random, String text) {
        StringBuilder out = new StringBuilder(text);
        int edits = 1 + random.nextInt(3);
        for (int i = 0; i < edits && !out.isEmpty(); i++) {
            int at = random.nextInt(out.length());
            switch (random.nextInt(4)) {
                case 0 -> out.setLength(at);
                case 1 -> out.deleteCharAt(at);
                case 2 -> out.insert(at, ALPHABET.charAt(random.nextInt(ALPHABET.length())));
                default -> out.setCharAt(at, ALPHABET.charAt(random.nextInt(ALPHABET.length())));
            }
        }
        return out.toString();
    }

    private static String garbage(Random random) {
        StringBuilder out = new StringBuilder();
        int n = random.nextInt(24);
        for (int i = 0; i < n; i++) {
            out.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        return out.toString();
    }

    @Test
    void malformedTextOnlyEverRaisesStatusException() {
        Random random = new Random(0x0A7B0);
        int parsed = 0;
        for (int i = 0; i < 20_000; i++) {
            String text = i % 2 == 0 ? garbage(random)
                    : mutate(random, SEEDS[random.nextInt(SEEDS.length)]);
            try (Arena arena = Arena.ofConfined()) {
                BufferViewText.Parsed view = BufferViewText.parse(text, arena);
                String formatted = BufferViewText.format(view.contents(), view.header().shape(),
                        view.header().elementType(), 1000);
                // Whatever parses must format and parse again to the same header.
                if (view.header().byteLength() < 4096) {
                    BufferViewText.Parsed again = BufferViewText.parse(formatted, arena);
                    // Names, not values: "i01" is a 1-bit integer that prints as i1 (boolean).
                    assertEquals(view.header().toString(), again.header().toString(), text);
                }
                parsed++;
            } catch (StatusException expected) {
                // the only acceptable failure
            }
            try {
                MemoryType.parse(text);
                ElementType.parse(text);
                Shape.parse(text);
            } catch (StatusException expected) {
                // the only acceptable failure
            }
        }
        assertEquals(true, parsed > 100, "the fuzzer should also produce valid views: " + parsed);
    }

    /**
     * IREE's f32-to-narrow conversion flushes everything below the smallest subnormal to zero,
     * even values that round up to it, and %G prints that subnormal a hair low (f16 2^-24 is
     * {@code 5.96046E-08}): so IREE itself cannot round-trip it. Ortho keeps IREE's conversion
     * (see FloatTextTest), and this test leaves those encodings out.
     */
    private static void dropSmallestSubnormals(int type, byte[] data) {
        if (type == ElementType.FLOAT_16) {
            for (int i = 0; i < data.length; i += 2) {
                if (data[i] == 1 && (data[i + 1] & 0x7F) == 0) {
                    data[i] = 0;
                }
            }
        } else if (ElementType.isFloat(type) && ElementType.bitCount(type) == 8
                && type != ElementType.FLOAT_8_E8M0_FNU) {
            for (int i = 0; i < data.length; i++) {
                if ((data[i] & 0x7F) == 1) {
                    data[i] = 0;
                }
            }
        }
    }

    @Test
    void randomContentsFormatStablyForEveryElementType() {
        int[] types = {
            ElementType.OPAQUE_8, ElementType.OPAQUE_16, ElementType.OPAQUE_32, ElementType.OPAQUE_64,
            ElementType.BOOL_8, ElementType.INT_4, ElementType.SINT_4, ElementType.UINT_4,
            ElementType.INT_8, ElementType.SINT_8, ElementType.UINT_8, ElementType.INT_16,
            ElementType.SINT_16, ElementType.UINT_16, ElementType.INT_32, ElementType.SINT_32,
            ElementType.UINT_32, ElementType.INT_64, ElementType.SINT_64, ElementType.UINT_64,
            ElementType.FLOAT_16, ElementType.FLOAT_32, ElementType.FLOAT_64, ElementType.BFLOAT_16,
            ElementType.COMPLEX_FLOAT_64, ElementType.COMPLEX_FLOAT_128, ElementType.FLOAT_8_E5M2,
            ElementType.FLOAT_8_E4M3_FN, ElementType.FLOAT_8_E5M2_FNUZ,
            ElementType.FLOAT_8_E4M3_FNUZ, ElementType.FLOAT_8_E8M0_FNU,
            ElementType.make(ElementType.NUMERICAL_TYPE_INTEGER, 12),
        };
        Random random = new Random(42);
        long[] shape = {3, 5, 7};
        try (Arena arena = Arena.ofConfined()) {
            for (int type : types) {
                long length = ElementType.packedByteCount(type, 105);
                byte[] data = new byte[(int) length];
                random.nextBytes(data);
                dropSmallestSubnormals(type, data);
                MemorySegment contents = arena.allocateFrom(ValueLayout.JAVA_BYTE, data);
                String text = BufferViewText.format(contents, shape, type);
                BufferViewText.Parsed parsed = BufferViewText.parse(text, arena);
                String name = ElementType.format(type);
                assertEquals(text, BufferViewText.format(parsed.contents(), shape, type), name);
                if (!ElementType.isFloat(type) || ElementType.isComplexFloat(type)) {
                    // Integers and hex are exact; padding bits of sub-byte types stay zero.
                    assertArrayEquals(parsed.contents().toArray(ValueLayout.JAVA_BYTE),
                            BufferViewText.parse(text, arena).contents()
                                    .toArray(ValueLayout.JAVA_BYTE), name);
                    if (ElementType.isByteAligned(type)) {
                        assertArrayEquals(data, parsed.contents().toArray(ValueLayout.JAVA_BYTE),
                                name);
                    }
                }
            }
        }
    }
}
