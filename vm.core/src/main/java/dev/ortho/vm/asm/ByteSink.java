package dev.ortho.vm.asm;

import java.util.Arrays;

/** A growable little-endian byte buffer for emitting bytecode. Not thread-safe. */
final class ByteSink {
    private byte[] bytes = new byte[256];
    private int size;

    int size() {
        return size;
    }

    byte[] toArray() {
        return Arrays.copyOf(bytes, size);
    }

    private void ensure(int extra) {
        if (size + extra > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + extra));
        }
    }

    void u8(int value) {
        ensure(1);
        bytes[size++] = (byte) value;
    }

    void u16(int value) {
        ensure(2);
        bytes[size++] = (byte) value;
        bytes[size++] = (byte) (value >>> 8);
    }

    void u32(int value) {
        ensure(4);
        for (int i = 0; i < 4; i++) {
            bytes[size++] = (byte) (value >>> (8 * i));
        }
    }

    void u64(long value) {
        ensure(8);
        for (int i = 0; i < 8; i++) {
            bytes[size++] = (byte) (value >>> (8 * i));
        }
    }

    void raw(byte[] data) {
        ensure(data.length);
        System.arraycopy(data, 0, bytes, size, data.length);
        size += data.length;
    }

    /** Appends zero bytes until the size is a multiple of {@code alignment} (a power of two). */
    void align(int alignment) {
        while ((size & (alignment - 1)) != 0) {
            u8(0);
        }
    }

    void patch16(int offset, int value) {
        bytes[offset] = (byte) value;
        bytes[offset + 1] = (byte) (value >>> 8);
    }

    void patch32(int offset, int value) {
        for (int i = 0; i < 4; i++) {
            bytes[offset + i] = (byte) (value >>> (8 * i));
        }
    }
}
