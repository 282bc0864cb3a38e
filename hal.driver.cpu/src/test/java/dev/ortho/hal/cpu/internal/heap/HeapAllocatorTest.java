package dev.ortho.hal.cpu.internal.heap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class HeapAllocatorTest {
    private final HeapAllocator allocator = new HeapAllocator("test");

    @Test
    void memoryIsFreedOnTheRootsLastReleaseNotBefore() {
        Buffer buffer = allocator.allocateBuffer(BufferParams.deviceLocal(), 1000);
        Buffer sub = buffer.subspan(100, 200);
        buffer.release();
        assertEquals(0, allocator.statistics().bytesFreed(), "the subspan still retains the root");
        sub.fill(0, Buffer.WHOLE_BUFFER, 7, 1);
        sub.release();
        assertEquals(1000, allocator.statistics().bytesFreed());
        assertEquals(0, allocator.statistics().bytesLive());
    }

    @Test
    void peakTracksTheMostLiveBytes() {
        Buffer a = allocator.allocateBuffer(BufferParams.deviceLocal(), 64);
        Buffer b = allocator.allocateBuffer(BufferParams.deviceLocal(), 128);
        a.release();
        b.release();
        Buffer c = allocator.allocateBuffer(BufferParams.deviceLocal(), 32);
        c.release();
        assertEquals(192, allocator.statistics().bytesPeak());
        assertEquals(224, allocator.statistics().bytesAllocated());
    }

    @Test
    void heapBuffersAreHostVisibleAndAlignedWhateverWasAsked() {
        try (Buffer buffer = allocator.allocateBuffer(new BufferParams(MemoryType.OPTIMAL_FOR_DEVICE, 0, 0, 0, 0), 3)) {
            assertTrue(MemoryType.has(buffer.memoryType(), MemoryType.HOST_VISIBLE));
            assertEquals(0, buffer.memoryType() & MemoryType.OPTIMAL);
            MemorySegment memory = ((HeapBuffer) buffer).range("test", 0, Buffer.WHOLE_BUFFER);
            assertEquals(0, memory.address() % HeapAllocator.MIN_ALIGNMENT);
        }
    }

    @Test
    void decommitFreesAtOnceAndLaterAccessFailsWithFailedPrecondition() {
        HeapBuffer buffer = allocator.allocate(BufferParams.deviceLocal(), 256, true);
        buffer.decommit();
        assertEquals(256, allocator.statistics().bytesFreed());
        StatusException e = assertThrows(StatusException.class, () -> buffer.range("copy source", 0, 4));
        assertEquals(StatusCode.FAILED_PRECONDITION, e.code());
        buffer.release();
        assertEquals(256, allocator.statistics().bytesFreed(), "release after decommit frees nothing twice");
    }

    @Test
    void importWrapsWithoutCopyingAndRunsTheCallbackOnLastRelease() {
        AtomicInteger released = new AtomicInteger();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment memory = arena.allocate(128, 64);
            Buffer buffer = allocator.importBuffer(BufferParams.hostLocal(), memory, released::incrementAndGet);
            buffer.fill(0, 8, 0x01020304, 4);
            assertEquals(0x01020304, memory.get(ValueLayout.JAVA_INT_UNALIGNED, 4));
            buffer.release();
            assertEquals(1, released.get());
            assertEquals(0, allocator.statistics().bytesAllocated());
        }
    }

    @Test
    void importOfUnalignedOrReadOnlyWritableMemoryIsInvalidArgument() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment memory = arena.allocate(128, 64);
            StatusException unaligned = assertThrows(StatusException.class,
                    () -> allocator.importBuffer(BufferParams.hostLocal(), memory.asSlice(4), null));
            assertEquals(StatusCode.INVALID_ARGUMENT, unaligned.code());
            assertTrue(unaligned.getMessage().contains("aligned"), unaligned.getMessage());
            StatusException readOnly = assertThrows(StatusException.class,
                    () -> allocator.importBuffer(BufferParams.hostLocal(), memory.asReadOnly(), null));
            assertEquals(StatusCode.INVALID_ARGUMENT, readOnly.code());
            Buffer ok = allocator.importBuffer(new BufferParams(MemoryType.HOST_LOCAL, MemoryAccess.READ, 0, 0, 0),
                    memory.asReadOnly(), null);
            ok.release();
        }
    }

    @Test
    void badAlignmentAndHugeSizesAreReportedWithTheirCodes() {
        StatusException alignment = assertThrows(StatusException.class,
                () -> allocator.allocateBuffer(new BufferParams(0, 0, 0, 0, 48), 16));
        assertEquals(StatusCode.INVALID_ARGUMENT, alignment.code());
        assertTrue(alignment.getMessage().contains("48"), alignment.getMessage());
        StatusException huge = assertThrows(StatusException.class,
                () -> allocator.allocateBuffer(BufferParams.deviceLocal(), Long.MAX_VALUE / 2));
        assertEquals(StatusCode.RESOURCE_EXHAUSTED, huge.code());
        assertEquals(0, allocator.statistics().bytesAllocated());
    }
}
