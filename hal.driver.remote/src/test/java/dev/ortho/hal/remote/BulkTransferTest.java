package dev.ortho.hal.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.MappedMemory;
import dev.ortho.hal.MemoryAccess;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Transfers larger than the socket buffers and the transfer chunk. Regression: a sender that
 * found the socket full handed the rest to the I/O loop while still holding the write lock, so
 * the loop never wrote and the connection stalled until the liveness deadline failed it.
 */
class BulkTransferTest {
    @Test
    void twentyMegabytesGoOutAndComeBackIntact() {
        int size = 20 << 20;
        byte[] data = new byte[size];
        new Random(7).nextBytes(data);
        try (Device device = Loopback.shared().connect();
                Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), size)) {
            buffer.write(0, MemorySegment.ofArray(data));
            byte[] back = new byte[size];
            buffer.read(0, MemorySegment.ofArray(back));
            assertEquals(-1, java.util.Arrays.mismatch(data, back));
            try (MappedMemory mapping = buffer.map(MemoryAccess.READ | MemoryAccess.WRITE, 1 << 20, 9 << 20)) {
                assertEquals(data[(1 << 20) + 12345], mapping.contents().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 12345));
                mapping.contents().fill((byte) 3);
                mapping.flush(0, Buffer.WHOLE_BUFFER);
            }
            buffer.read(0, MemorySegment.ofArray(back));
            assertEquals(data[(1 << 20) - 1], back[(1 << 20) - 1]);
            assertEquals(3, back[(1 << 20) + 5_000_000]);
            assertEquals(data[10 << 20], back[10 << 20]);
        }
    }
}
