package dev.ortho.launcher.internal;

import dev.ortho.runtime.Npy;
import dev.ortho.runtime.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.SeekableByteChannel;

/**
 * The tools' view of NumPy {@code .npy} arrays: the public reader and writer of the embedding
 * API ({@link Npy}, which states the formats, limits and failures), with the array as a record
 * of the HAL element type the function I/O code works with. Stateless; thread-safe.
 */
final class NpyFile {
    static final int MAX_HEADER_BYTES = Npy.MAX_HEADER_BYTES;
    static final int MAX_RANK = Npy.MAX_RANK;

    /** One array: its shape, HAL element type and dense row-major contents. */
    record Array(long[] shape, int elementType, MemorySegment contents) {
    }

    private NpyFile() {
    }

    /** The array at {@code channel}'s position (contents in {@code arena}); see {@link Npy#read}. */
    static Array read(SeekableByteChannel channel, String name, Arena arena) {
        Tensor array = Npy.read(channel, name, arena);
        return new Array(array.shape(), array.elementType(), array.contents());
    }

    /** The numpy dtype of {@code elementType}; see {@link Npy#descr}. */
    static String descr(int elementType) {
        return Npy.descr(elementType);
    }

    /** One {@code .npy} array's bytes; see {@link Npy#encode}. */
    static byte[] encode(long[] shape, int elementType, MemorySegment contents) {
        return Npy.encode(shape, elementType, contents);
    }
}
