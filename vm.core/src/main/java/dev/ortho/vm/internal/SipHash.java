package dev.ortho.vm.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * SipHash-2-4 (Aumasson and Bernstein) with the fixed key bytes {@code 00 01 … 0f}, the function
 * behind {@code vm.buffer.hash}. Stateless and thread-safe.
 */
public final class SipHash {
    private static final ValueLayout.OfLong LE_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long K0 = 0x0706050403020100L;
    private static final long K1 = 0x0f0e0d0c0b0a0908L;

    private SipHash() {
    }

    /** Hashes {@code length} bytes of {@code data} starting at {@code offset}. */
    public static long hash(MemorySegment data, long offset, long length) {
        long v0 = 0x736f6d6570736575L ^ K0;
        long v1 = 0x646f72616e646f6dL ^ K1;
        long v2 = 0x6c7967656e657261L ^ K0;
        long v3 = 0x7465646279746573L ^ K1;
        long end = offset + (length & ~7L);
        for (long p = offset; p < end; p += 8) {
            long m = data.get(LE_LONG, p);
            v3 ^= m;
            for (int r = 0; r < 2; r++) {
                v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
                v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
                v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
                v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
            }
            v0 ^= m;
        }
        long last = length << 56;
        int left = (int) (length & 7);
        for (int i = left - 1; i >= 0; i--) {
            last |= (data.get(ValueLayout.JAVA_BYTE, end + i) & 0xFFL) << (8 * i);
        }
        v3 ^= last;
        for (int r = 0; r < 2; r++) {
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        }
        v0 ^= last;
        v2 ^= 0xff;
        for (int r = 0; r < 4; r++) {
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        }
        return v0 ^ v1 ^ v2 ^ v3;
    }
}
