package dev.ortho.modules.hal.internal;

import dev.ortho.vm.VmBuffer;
import java.lang.foreign.MemorySegment;

/**
 * A {@code hal.file} over host memory: a read-only range of a {@code vm.buffer}
 * ({@code hal.ex.file.from_memory}). The {@link HalRef} holding it retains the {@code vm.buffer}.
 *
 * @param buffer the backing buffer (kept alive by the ref)
 * @param contents the file's bytes, a view of {@code buffer}
 */
record MemoryFile(VmBuffer buffer, MemorySegment contents) {
    /** File length in bytes. */
    long length() {
        return contents.byteSize();
    }

    @Override
    public String toString() {
        return "memory file of " + contents.byteSize() + " bytes";
    }
}
