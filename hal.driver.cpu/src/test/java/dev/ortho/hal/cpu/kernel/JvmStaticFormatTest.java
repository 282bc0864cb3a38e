package dev.ortho.hal.cpu.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class JvmStaticFormatTest {

    private static MemorySegment text(String text) {
        return MemorySegment.ofArray(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void encodeAndParseRoundTrip() {
        var descriptor = JvmStaticFormat.parse(JvmStaticFormat.encode("builtin", "add_f32", "mul_f32"));
        assertEquals("builtin", descriptor.library());
        assertEquals(List.of("add_f32", "mul_f32"), descriptor.functions());
        assertEquals(List.of(), JvmStaticFormat.parse(text("# comment\r\n\r\nlibrary = mine\r\n")).functions());
    }

    @Test
    void malformedDataIsInvalidArgumentNamingTheProblem() {
        for (String bad : new String[] {"", "library", "library=", "library=a\nlibrary=b", "colour=red\nlibrary=a",
                "library=a\nfunctions=x,,y", "=a"}) {
            StatusException e = assertThrows(StatusException.class, () -> JvmStaticFormat.parse(text(bad)), bad);
            assertEquals(StatusCode.INVALID_ARGUMENT, e.code(), bad);
        }
        StatusException notUtf8 = assertThrows(StatusException.class,
                () -> JvmStaticFormat.parse(MemorySegment.ofArray(new byte[] {(byte) 0xC3, 0x28})));
        assertTrue(notUtf8.getMessage().contains("UTF-8"), notUtf8.getMessage());
        StatusException big = assertThrows(StatusException.class,
                () -> JvmStaticFormat.parse(MemorySegment.ofArray(new byte[JvmStaticFormat.MAX_DATA_BYTES + 1])));
        assertTrue(big.getMessage().contains(String.valueOf(JvmStaticFormat.MAX_DATA_BYTES)), big.getMessage());
    }

    @Test
    void randomAndTruncatedDataNeverEscapesAsAnythingButStatus() {
        Random random = new Random(4);
        byte[] valid = "library=builtin\nfunctions=add_f32\n".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < 2000; i++) {
            byte[] data = i % 2 == 0 ? java.util.Arrays.copyOf(valid, random.nextInt(valid.length + 1)) : new byte[random.nextInt(64)];
            if (i % 2 == 1) {
                random.nextBytes(data);
            }
            try {
                JvmStaticFormat.parse(MemorySegment.ofArray(data));
            } catch (StatusException e) {
                assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
            }
        }
    }
}
