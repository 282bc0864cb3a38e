package dev.ortho.launcher.internal;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.lang.foreign.Arena;
import java.nio.channels.SeekableByteChannel;

/**
 * The launcher's {@code .npy} reader ({@code --input=@x.npy}, {@code *x.npy}, which reads every
 * array of a file in turn). {@code NpyFile} is package-private, so this target lives in its
 * package (the launcher jar is a plain jar on this module's test class path; nothing is
 * widened). Reads arrays until end-of-file, as {@code *file.npy} does. Seeds: small arrays
 * written by NumPy (fuzz/src/test/resources/.../make_npy_seeds.py).
 */
class NpyFileFuzzTest {
    @FuzzTest(maxDuration = "3m")
    void npy(byte[] data) throws Exception {
        if (data.length > 1 << 16) {
            return;
        }
        try (Arena arena = Arena.ofConfined(); SeekableByteChannel channel = new BytesChannel(data)) {
            for (int i = 0; i < 64; i++) {
                NpyFile.read(channel, "fuzz.npy", arena);
            }
        } catch (StatusException e) {
            if (e.code() == null || e.code() == StatusCode.OK) {
                throw new AssertionError("status without a code: " + e, e);
            }
        }
    }
}
