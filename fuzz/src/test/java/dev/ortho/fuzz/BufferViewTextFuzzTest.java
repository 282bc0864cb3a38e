package dev.ortho.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ortho.hal.text.BufferViewText;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;

/**
 * IREE's buffer-view text form ({@code --input=2x2xf32=[1 2][3 4]}, {@code --expected_output}):
 * header and elements parsed into host memory, then formatted back. Inputs whose header asks
 * for more than {@link #MAX_CONTENT_BYTES} are only header-parsed, so the target checks the
 * parser, not the heap. Seeds: the forms README.md and the tests use.
 */
class BufferViewTextFuzzTest {
    static final long MAX_CONTENT_BYTES = 1 << 20;

    @FuzzTest(maxDuration = "3m")
    void bufferView(byte[] data) throws Exception {
        if (data.length > Contract.MAX_INPUT_BYTES) {
            return;
        }
        String text = new String(data, StandardCharsets.UTF_8);
        Contract.onlyStatus(() -> {
            BufferViewText.Header header = BufferViewText.parseHeader(text);
            if (header.byteLength() > MAX_CONTENT_BYTES) {
                return;
            }
            try (Arena arena = Arena.ofConfined()) {
                BufferViewText.Parsed parsed = BufferViewText.parse(text, arena);
                BufferViewText.format(parsed.contents(), parsed.header().shape(), parsed.header().elementType());
            }
        });
    }
}
