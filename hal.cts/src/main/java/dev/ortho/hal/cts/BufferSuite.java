package dev.ortho.hal.cts;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferOverlap;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.Device;
import dev.ortho.hal.MappedMemory;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryType;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** Buffer conformance: subspans, ranges, mapping and its access checks, host fill/read/write. */
public abstract class BufferSuite extends DeviceTestBase {

    @Test
    void subspansViewTheirRootAndKeepItAlive() {
        Buffer root = ints(0, 1, 2, 3, 4, 5, 6, 7);
        Buffer sub = root.subspan(8, 16);
        root.release();
        assertSame(sub.allocatedBuffer(), sub.allocatedBuffer().allocatedBuffer());
        assertEquals(8, sub.byteOffset());
        assertEquals(32, sub.allocationSize());
        assertArrayEquals(new int[] {2, 3, 4, 5}, readInts(sub));
        Buffer nested = sub.subspan(4, Buffer.WHOLE_BUFFER);
        assertEquals(12, nested.byteOffset());
        assertArrayEquals(new int[] {3, 4, 5}, readInts(nested));
        nested.release();
        sub.release();
    }

    @Test
    void subspanOutsideTheBufferIsOutOfRangeNamingRangeAndLength() {
        try (Buffer buffer = allocate(64)) {
            var e = assertStatus(StatusCode.OUT_OF_RANGE, () -> buffer.subspan(32, 40));
            assertTrue(e.getMessage().contains("[32, 72)") && e.getMessage().contains("64"), e.getMessage());
            assertStatus(StatusCode.OUT_OF_RANGE, () -> buffer.subspan(65, 0));
            assertStatus(StatusCode.OUT_OF_RANGE, () -> buffer.subspan(-1, 4));
        }
    }

    @Test
    void writesThroughAMappingAreVisibleToReads() {
        try (Buffer buffer = allocate(16)) {
            try (MappedMemory mapping = buffer.map(MemoryAccess.WRITE, 4, 8)) {
                assertEquals(8, mapping.byteLength());
                mapping.contents().setAtIndex(I32, 1, 42);
                mapping.flush(0, Buffer.WHOLE_BUFFER);
            }
            assertArrayEquals(new int[] {0, 0, 42, 0}, readInts(buffer));
        }
    }

    @Test
    void readOnlyMappingsCannotBeWritten() {
        try (Buffer buffer = allocate(16); MappedMemory mapping = buffer.map(MemoryAccess.READ, 0, 16)) {
            assertTrue(mapping.contents().isReadOnly());
            mapping.invalidate(0, 16);
            assertStatus(StatusCode.OUT_OF_RANGE, () -> mapping.flush(8, 16));
        }
    }

    @Test
    void mappingForAccessTheBufferDoesNotAllowIsPermissionDenied() {
        BufferParams readOnly = new BufferParams(MemoryType.HOST_LOCAL, MemoryAccess.READ, 0, 0, 0);
        try (Buffer buffer = device.allocator().allocateBuffer(readOnly, 16)) {
            assertStatus(StatusCode.PERMISSION_DENIED, () -> buffer.map(MemoryAccess.WRITE, 0, 16));
            assertStatus(StatusCode.PERMISSION_DENIED, () -> buffer.write(0, MemorySegment.ofArray(new byte[4])));
            buffer.read(0, MemorySegment.ofArray(new byte[16]));
        }
    }

    @Test
    void mappingOutsideTheBufferIsOutOfRange() {
        try (Buffer buffer = allocate(16)) {
            var e = assertStatus(StatusCode.OUT_OF_RANGE, () -> buffer.map(MemoryAccess.READ, 8, 16));
            assertTrue(e.getMessage().contains("16"), e.getMessage());
            assertStatus(StatusCode.OUT_OF_RANGE, () -> buffer.read(12, MemorySegment.ofArray(new byte[8])));
        }
    }

    @Test
    void mappingsCannotBeUsedAfterClose() {
        try (Buffer buffer = allocate(16)) {
            MappedMemory mapping = buffer.map(MemoryAccess.READ, 0, 16);
            mapping.close();
            mapping.close();
            assertThrows(RuntimeException.class, mapping::contents);
        }
    }

    @Test
    void hostFillRepeatsOneTwoAndFourBytePatternsLittleEndian() {
        try (Buffer buffer = allocate(12)) {
            buffer.fill(0, 4, 0xAB, 1);
            buffer.fill(4, 4, 0x1234, 2);
            buffer.fill(8, Buffer.WHOLE_BUFFER, 0xCAFEBABE, 4);
            assertArrayEquals(new int[] {0xABABABAB, 0x12341234, 0xCAFEBABE}, readInts(buffer));
        }
    }

    @Test
    void fillWithABadPatternLengthOrMisalignedRangeIsInvalidArgument() {
        try (Buffer buffer = allocate(16)) {
            var e = assertStatus(StatusCode.INVALID_ARGUMENT, () -> buffer.fill(0, 16, 0, 3));
            assertTrue(e.getMessage().contains("3"), e.getMessage());
            assertStatus(StatusCode.INVALID_ARGUMENT, () -> buffer.fill(2, 8, 0, 4));
        }
    }

    @Test
    void largeFillsCoverEveryByte() {
        try (Buffer buffer = allocate(100_004)) {
            buffer.fill(4, Buffer.WHOLE_BUFFER, 7, 4);
            int[] values = readInts(buffer);
            assertEquals(0, values[0]);
            for (int i = 1; i < values.length; i++) {
                assertEquals(7, values[i], "element " + i);
            }
        }
    }

    @Test
    void aMappingKeepsItsBufferAliveAfterTheLastOtherRelease() {
        Buffer buffer = ints(4, 5, 6);
        MappedMemory mapping = buffer.map(MemoryAccess.READ, 0, Buffer.WHOLE_BUFFER);
        buffer.release();
        assertEquals(5, mapping.contents().getAtIndex(I32, 1));
        assertTrue(device.allocator().statistics().bytesLive() >= 12, "still mapped, still live");
        mapping.close();
        assertEquals(0, device.allocator().statistics().bytesLive(), "unmapping released the last reference");
    }

    @Test
    void persistentMappingsNeedPersistentMappingUsage() {
        try (Buffer buffer = ints(1, 2); MappedMemory mapping = buffer.map(Buffer.MAPPING_MODE_PERSISTENT,
                MemoryAccess.READ | MemoryAccess.WRITE, 0, 8)) {
            mapping.contents().setAtIndex(I32, 0, 3);
            assertArrayEquals(new int[] {3, 2}, readInts(buffer));
        }
        try (Buffer buffer = allocate(4)) {
            var e = assertStatus(StatusCode.INVALID_ARGUMENT, () -> buffer.map(3, MemoryAccess.READ, 0, 4));
            assertTrue(e.getMessage().contains("mode 3"), e.getMessage());
        }
        BufferParams scopedOnly = new BufferParams(MemoryType.DEVICE_LOCAL, MemoryAccess.ALL,
                BufferUsage.TRANSFER | BufferUsage.MAPPING_SCOPED, 0, 0);
        try (Buffer buffer = device.allocator().allocateBuffer(scopedOnly, 16)) {
            if ((buffer.allowedUsage() & BufferUsage.MAPPING_PERSISTENT) == 0) {
                var denied = assertStatus(StatusCode.PERMISSION_DENIED,
                        () -> buffer.map(Buffer.MAPPING_MODE_PERSISTENT, MemoryAccess.READ, 0, 16));
                assertTrue(denied.getMessage().contains("MAPPING_PERSISTENT"), denied.getMessage());
            }
        }
    }

    @Test
    void deallocaWhileMappedFreesTheMemoryOnlyAfterUnmapping() {
        try (Semaphore s = device.createSemaphore(0)) {
            Buffer buffer = device.queueAlloca(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(),
                    SemaphoreList.of(s, 1), BufferParams.hostLocal(), 64, 0);
            s.await(1, Timeout.infinite());
            MappedMemory mapping = buffer.map(MemoryAccess.WRITE, 0, 64);
            device.queueDealloca(Device.QUEUE_AFFINITY_ANY, SemaphoreList.of(s, 1), SemaphoreList.of(s, 2), buffer, 0);
            s.await(2, Timeout.infinite());
            mapping.contents().setAtIndex(I32, 3, 77); // still valid memory while mapped
            assertStatus(StatusCode.FAILED_PRECONDITION, () -> buffer.map(MemoryAccess.READ, 0, 4));
            mapping.close();
            buffer.release();
        }
        if (!capabilities().contains(STREAM_ORDERED_REUSE)) { // a pool may keep dealloca'd memory for reuse
            assertEquals(0, device.allocator().statistics().bytesLive());
        }
    }

    @Test
    void mapCopyCopiesBetweenBuffersButRefusesOverlap() {
        try (Buffer a = ints(1, 2, 3, 4); Buffer b = allocate(16)) {
            Buffer.mapCopy(a, 4, b, 0, 8);
            assertArrayEquals(new int[] {2, 3, 0, 0}, readInts(b));
            Buffer.mapCopy(a, 0, a, 8, 8);
            assertArrayEquals(new int[] {1, 2, 1, 2}, readInts(a));
            var e = assertStatus(StatusCode.INVALID_ARGUMENT, () -> Buffer.mapCopy(a, 0, a, 4, 8));
            assertTrue(e.getMessage().contains("[0, 8)") && e.getMessage().contains("[4, 12)"), e.getMessage());
            assertStatus(StatusCode.OUT_OF_RANGE, () -> Buffer.mapCopy(a, 12, b, 0, 8));
        }
    }

    @Test
    void overlapIsJudgedWithinTheRootAllocation() {
        try (Buffer a = allocate(64); Buffer b = allocate(64); Buffer tail = a.subspan(32, 32)) {
            assertEquals(BufferOverlap.DISJOINT, BufferOverlap.test(a, 0, 32, b, 0, 32));
            assertEquals(BufferOverlap.DISJOINT, BufferOverlap.test(a, 0, 32, tail, 0, 32));
            assertEquals(BufferOverlap.COMPLETE, BufferOverlap.test(a, 32, Buffer.WHOLE_BUFFER, tail, 0, 32));
            assertEquals(BufferOverlap.PARTIAL, BufferOverlap.test(a, 16, 32, tail, 0, 8));
            assertEquals(BufferOverlap.DISJOINT, BufferOverlap.test(a, 16, 0, a, 16, 8), "empty ranges never overlap");
        }
    }
}
