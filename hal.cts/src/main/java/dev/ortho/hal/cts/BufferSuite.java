package dev.ortho.hal.cts;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.MappedMemory;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryType;
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
}
