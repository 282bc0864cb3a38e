package dev.ortho.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ortho.io.parameters.ParameterArchive;
import dev.ortho.io.parameters.ParameterEntry;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The IREE parameter archive reader ({@code .irpa}) as {@code --parameters=} and the
 * {@code io_parameters} module use it: open the archive, then touch every entry's key, metadata,
 * length and contents (or splat pattern). The bytes sit off-heap, as a mapped file's would, so
 * the reader's import path is exercised. Seeds: archives written by IREE's own runtime.
 */
class IrpaFuzzTest {
    @FuzzTest(maxDuration = "3m")
    void irpa(byte[] data) throws Exception {
        if (data.length > Contract.MAX_INPUT_BYTES) {
            return;
        }
        Contract.onlyStatus(() -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment bytes = arena.allocate(Math.max(1, data.length), 64)
                        .copyFrom(MemorySegment.ofArray(data)).asSlice(0, data.length);
                try (ParameterArchive archive = ParameterArchive.of(bytes.asReadOnly())) {
                    for (ParameterEntry entry : archive.entries()) {
                        entry.key();
                        entry.metadata();
                        long length = entry.length();
                        if (entry.isSplat()) {
                            entry.splatPattern();
                        } else {
                            archive.contents().asSlice(entry.offset(), length);
                            entry.contents();
                        }
                    }
                }
            }
        });
    }
}
