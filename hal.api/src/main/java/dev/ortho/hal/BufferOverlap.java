package dev.ortho.hal;

/**
 * How two buffer ranges relate within their allocations: IREE's
 * {@code iree_hal_buffer_overlap_t} and {@code iree_hal_buffer_test_overlap}.
 */
public enum BufferOverlap {
    /** The ranges share no byte (different allocations, or apart, or one is empty). */
    DISJOINT,
    /** The ranges share some bytes but are not identical. */
    PARTIAL,
    /** The ranges are the same bytes of the same allocation. */
    COMPLETE;

    /**
     * Compares {@code [lhsOffset, lhsOffset + lhsLength)} of {@code lhs} with the range of
     * {@code rhs}, both relative to their own buffer and resolved to allocation offsets; lengths
     * may be {@link Buffer#WHOLE_BUFFER}. Pure: no range checking (ranges are assumed valid),
     * thread-safe.
     */
    public static BufferOverlap test(Buffer lhs, long lhsOffset, long lhsLength, Buffer rhs, long rhsOffset,
            long rhsLength) {
        if (lhs.allocatedBuffer() != rhs.allocatedBuffer()) {
            return DISJOINT;
        }
        long lhsStart = lhs.byteOffset() + lhsOffset;
        long rhsStart = rhs.byteOffset() + rhsOffset;
        long lhsBytes = lhsLength == Buffer.WHOLE_BUFFER ? lhs.byteLength() - lhsOffset : lhsLength;
        long rhsBytes = rhsLength == Buffer.WHOLE_BUFFER ? rhs.byteLength() - rhsOffset : rhsLength;
        if (lhsBytes <= 0 || rhsBytes <= 0) {
            return DISJOINT;
        }
        if (lhsStart == rhsStart && lhsBytes == rhsBytes) {
            return COMPLETE;
        }
        return lhsStart + lhsBytes > rhsStart && rhsStart + rhsBytes > lhsStart ? PARTIAL : DISJOINT;
    }
}
