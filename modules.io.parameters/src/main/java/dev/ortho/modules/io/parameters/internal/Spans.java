package dev.ortho.modules.io.parameters.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.VmBuffer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The indirect arguments of {@code io_parameters.load/gather/scatter} (IREE's
 * {@code iree_io_parameters_indirect_args_t}): a key table of {@code (u32 offset, u32 length)}
 * pairs into the key data, and a span table of {@code (u64 parameter_offset, u64 buffer_offset,
 * u64 length)} triples, little-endian. The span table's size gives the count. Decoded one span at
 * a time; keys are checked against the key data when read. Borrows the buffers; not thread-safe.
 */
final class Spans {
    static final int KEY_ENTRY_SIZE = 8;
    static final int SPAN_ENTRY_SIZE = 24;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** One decoded span: the key bytes and the ranges (u64 values as Java longs). */
    record Span(byte[] key, long parameterOffset, long bufferOffset, long length) {
    }

    private final MemorySegment keyTable;
    private final MemorySegment keyData;
    private final MemorySegment spans;
    private final int count;

    /**
     * @throws StatusException INVALID_ARGUMENT if the span table is not a whole number of spans,
     *     or the key table has fewer entries than there are spans
     */
    Spans(VmBuffer keyTable, VmBuffer keyData, VmBuffer spans) {
        long spanBytes = spans.length();
        if (spanBytes % SPAN_ENTRY_SIZE != 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "buffer span storage must be aligned to "
                    + "iree_io_parameters_span_entry_t (" + SPAN_ENTRY_SIZE + " bytes); got " + spanBytes + " bytes");
        }
        long n = spanBytes / SPAN_ENTRY_SIZE;
        if (n > Integer.MAX_VALUE - 8) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "span count " + n + " is too large");
        }
        if (keyTable.length() < n * KEY_ENTRY_SIZE) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "key string table must have enough data to "
                    + "service all defined spans (" + n + " spans need " + n * KEY_ENTRY_SIZE + " bytes, table has "
                    + keyTable.length() + ")");
        }
        this.count = (int) n;
        this.keyTable = keyTable.segment();
        this.keyData = keyData.segment();
        this.spans = spans.segment();
    }

    int count() {
        return count;
    }

    /**
     * Span {@code i}.
     *
     * @throws StatusException OUT_OF_RANGE if its key range runs off the key data (naming it)
     */
    Span get(int i) {
        long keyOffset = Integer.toUnsignedLong(keyTable.get(U32, (long) i * KEY_ENTRY_SIZE));
        long keyLength = Integer.toUnsignedLong(keyTable.get(U32, (long) i * KEY_ENTRY_SIZE + 4));
        long capacity = keyData.byteSize();
        if (keyOffset > capacity) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "attempted to access an address off the end of the "
                    + "valid buffer range (span " + i + " key offset=" + keyOffset + ", length=" + keyLength
                    + ", data_capacity=" + capacity + ")");
        }
        if (keyLength > capacity - keyOffset) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "attempted to access an address outside of the "
                    + "valid buffer range (span " + i + " key offset=" + keyOffset + ", length=" + keyLength
                    + ", end(inc)=" + (keyOffset + keyLength - 1) + ", data_capacity=" + capacity + ")");
        }
        byte[] key = keyData.asSlice(keyOffset, keyLength).toArray(ValueLayout.JAVA_BYTE);
        long at = (long) i * SPAN_ENTRY_SIZE;
        return new Span(key, spans.get(U64, at), spans.get(U64, at + 8), spans.get(U64, at + 16));
    }
}
