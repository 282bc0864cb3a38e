package dev.ortho.hal.cts;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.hal.Allocator;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.MemoryType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Allocator conformance: heaps, compatibility, allocation, statistics, import. */
public abstract class AllocatorSuite extends DeviceTestBase {

    @Test
    void heapsAreListedWithAtLeast64ByteAlignment() {
        assertFalse(device.allocator().heaps().isEmpty());
        device.allocator().heaps().forEach(heap -> assertTrue(heap.minAlignment() >= 64, heap.toString()));
    }

    @Test
    void deviceLocalDefaultBuffersAreAllocatableAndQueueUsable() {
        int compatibility = device.allocator().queryBufferCompatibility(BufferParams.deviceLocal(), 1024);
        assertTrue((compatibility & Allocator.COMPATIBILITY_ALLOCATABLE) != 0);
        assertTrue((compatibility & Allocator.COMPATIBILITY_QUEUE_TRANSFER) != 0);
        assertTrue((compatibility & Allocator.COMPATIBILITY_QUEUE_DISPATCH) != 0);
    }

    @Test
    void allocatedBuffersAreZeroFilledWithTheRequestedSize() {
        try (Buffer buffer = allocate(4096)) {
            assertEquals(4096, buffer.byteLength());
            assertEquals(0, buffer.byteOffset());
            assertTrue(MemoryType.has(buffer.memoryType(), MemoryType.HOST_VISIBLE));
            assertTrue(BufferUsage.has(buffer.allowedUsage(), BufferUsage.MAPPING_SCOPED));
            assertArrayEquals(new int[1024], readInts(buffer));
        }
    }

    @Test
    void zeroByteBuffersAreAllowed() {
        try (Buffer buffer = allocate(0)) {
            assertEquals(0, buffer.byteLength());
        }
    }

    @Test
    void negativeSizeIsInvalidArgumentNamingTheSize() {
        var e = assertStatus(StatusCode.INVALID_ARGUMENT,
                () -> device.allocator().allocateBuffer(BufferParams.deviceLocal(), -5));
        assertTrue(e.getMessage().contains("-5"), e.getMessage());
    }

    @Test
    void statisticsCountAllocatedFreedAndPeakBytes() {
        var before = device.allocator().statistics();
        Buffer a = allocate(1000);
        Buffer b = allocate(3000);
        a.release();
        b.release();
        var after = device.allocator().statistics();
        assertEquals(4000, after.bytesAllocated() - before.bytesAllocated());
        assertEquals(4000, after.bytesFreed() - before.bytesFreed());
        assertTrue(after.bytesPeak() >= 4000);
        device.allocator().trim();
    }

    @Test
    void importedHostMemoryIsSharedNotCopiedAndTheCallbackRunsOnLastRelease() {
        AtomicInteger released = new AtomicInteger();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment memory = arena.allocate(64, 64);
            Buffer buffer = device.allocator().importBuffer(BufferParams.hostLocal(), memory, released::incrementAndGet);
            buffer.fill(0, 64, 0x5A, 1);
            assertEquals((byte) 0x5A, memory.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 63));
            buffer.retain();
            buffer.release();
            assertEquals(0, released.get());
            buffer.release();
            assertEquals(1, released.get());
        }
    }

    @Test
    void importOfMisalignedMemoryIsInvalidArgument() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment memory = arena.allocate(128, 64).asSlice(8);
            assertStatus(StatusCode.INVALID_ARGUMENT,
                    () -> device.allocator().importBuffer(BufferParams.hostLocal(), memory, null));
        }
    }

    @Test
    void directByteBuffersImportTheirRemainingBytesWithoutCopying() {
        ByteBuffer direct = ByteBuffer.allocateDirect(256).order(ByteOrder.LITTLE_ENDIAN);
        long address = MemorySegment.ofBuffer(direct).address();
        int skip = (int) ((64 - (address & 63)) & 63); // start the view on a 64-byte boundary
        direct.position(skip).limit(skip + 64);
        AtomicInteger released = new AtomicInteger();
        try (Buffer buffer = device.allocator().importBuffer(BufferParams.hostLocal(), direct.slice()
                .order(ByteOrder.LITTLE_ENDIAN), released::incrementAndGet)) {
            assertEquals(64, buffer.byteLength());
            buffer.write(4, i32(1234));
            assertEquals(1234, direct.getInt(skip + 4));
        }
        assertEquals(1, released.get());
        var e = assertStatus(StatusCode.INVALID_ARGUMENT, () -> device.allocator().importBuffer(
                BufferParams.hostLocal(), ByteBuffer.allocate(64), null));
        assertTrue(e.getMessage().contains("not direct"), e.getMessage());
    }
}
