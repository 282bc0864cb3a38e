package dev.ortho.hal.cpu.internal.heap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
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
        assertTrue(huge.getMessage().contains("allocator 'test' cannot allocate " + Long.MAX_VALUE / 2 + " bytes"),
                huge.getMessage());
        assertEquals(0, allocator.statistics().bytesAllocated());
    }

    private static long address(Buffer buffer) {
        return ((HeapBuffer) buffer).range("test", 0, Buffer.WHOLE_BUFFER).address();
    }

    /**
     * Issue 16: a subspan of all of a buffer is that buffer, retained (IREE's
     * {@code iree_hal_buffer_subspan} fast path), not a new object per call; references stay exact.
     */
    @Test
    void aSubspanOfTheWholeBufferIsTheBufferItselfRetained() {
        Buffer a = allocator.allocateBuffer(BufferParams.deviceLocal(), 256);
        Buffer whole = a.subspan(0, Buffer.WHOLE_BUFFER);
        Buffer all = a.subspan(0, 256);
        assertSame(a, whole);
        assertSame(a, all);
        Buffer part = a.subspan(0, 128);
        assertNotSame(a, part);
        assertEquals(128, part.byteLength());
        a.release();
        whole.release();
        part.release();
        assertEquals(0, allocator.statistics().bytesFreed(), "one reference is left: the memory is still in use");
        all.fill(0, Buffer.WHOLE_BUFFER, 0x5A, 1);
        all.release();
        assertEquals(256, allocator.statistics().bytesFreed(), "the last reference freed it");
    }

    @Test
    void freedMemoryIsReusedZeroedButNeverWhileASubspanOrMappingStillRefersToIt() {
        Buffer a = allocator.allocateBuffer(BufferParams.deviceLocal(), 3000);
        long addressA = address(a);
        a.fill(0, Buffer.WHOLE_BUFFER, 0x5A, 1);
        Buffer sub = a.subspan(0, 100);
        a.release();
        Buffer b = allocator.allocateBuffer(BufferParams.deviceLocal(), 3000);
        assertTrue(address(b) != addressA, "the subspan keeps the root's memory");
        sub.release(); // the root's memory goes back to the pool
        assertTrue(allocator.idleBytes() > 0);
        Buffer c = allocator.allocateBuffer(BufferParams.deviceLocal(), 4096);
        assertEquals(addressA, address(c), "same size class: the freed block is reused");
        MemorySegment contents = ((HeapBuffer) c).range("test", 0, Buffer.WHOLE_BUFFER);
        assertEquals(-1, contents.mismatch(MemorySegment.ofArray(new byte[4096])), "reused memory is zeroed");

        HeapBuffer queued = allocator.allocate(BufferParams.deviceLocal(), 3000, true);
        long addressQueued = address(queued);
        var mapping = queued.map(MemoryAccess.WRITE, 0, 8);
        queued.decommit(); // dealloca while mapped: the memory is freed when the mapping closes
        Buffer d = allocator.allocateBuffer(BufferParams.deviceLocal(), 3000);
        assertTrue(address(d) != addressQueued, "an open mapping keeps the memory");
        mapping.contents().set(ValueLayout.JAVA_LONG, 0, 1);
        mapping.close();
        queued.release();
        Buffer e = allocator.allocateBuffer(BufferParams.deviceLocal(), 3000);
        assertEquals(addressQueued, address(e));
        b.release();
        c.release();
        d.release();
        e.release();
        assertEquals(0, allocator.statistics().bytesLive());
    }

    @Test
    void trimAndCloseGiveIdleMemoryBackAndLiveBuffersKeepTheirs() {
        Buffer idle = allocator.allocateBuffer(BufferParams.deviceLocal(), 5000);
        MemorySegment idleMemory = ((HeapBuffer) idle).range("test", 0, Buffer.WHOLE_BUFFER);
        idle.release();
        assertEquals(8192, allocator.idleBytes());
        allocator.trim();
        assertEquals(0, allocator.idleBytes());
        assertTrue(!idleMemory.scope().isAlive(), "trim closed the idle block");

        Buffer live = allocator.allocateBuffer(BufferParams.deviceLocal(), 100);
        Buffer another = allocator.allocateBuffer(BufferParams.deviceLocal(), 100);
        another.release();
        allocator.close();
        assertEquals(0, allocator.idleBytes());
        live.fill(0, Buffer.WHOLE_BUFFER, 3, 1);
        MemorySegment liveMemory = ((HeapBuffer) live).range("test", 0, Buffer.WHOLE_BUFFER);
        assertEquals(3, liveMemory.get(ValueLayout.JAVA_BYTE, 99));
        live.release();
        assertTrue(!liveMemory.scope().isAlive(), "freed after the close, memory goes back to the system");
        Buffer after = allocator.allocateBuffer(BufferParams.deviceLocal(), 100);
        after.release();
        assertEquals(0, allocator.idleBytes(), "a closed allocator keeps nothing");
        assertEquals(0, allocator.statistics().bytesLive());
    }

    @Test
    void doubleReleaseIsFailedPreconditionAndFreesOnce() {
        Buffer buffer = allocator.allocateBuffer(BufferParams.deviceLocal(), 64);
        buffer.release();
        StatusException e = assertThrows(StatusException.class, buffer::release);
        assertEquals(StatusCode.FAILED_PRECONDITION, e.code());
        assertEquals(64, allocator.statistics().bytesFreed());
        assertEquals(64, allocator.idleBytes(), "the block went back to the pool once");
    }

    @Test
    void buffersAllocatedAndFreedOnSeveralThreadsAllBalance() throws Exception {
        int threads = 4;
        java.util.concurrent.ExecutorService executor = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            java.util.List<java.util.concurrent.Future<?>> futures = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                byte mark = (byte) (t + 1);
                futures.add(executor.submit(() -> {
                    for (int i = 0; i < 5_000; i++) {
                        Buffer buffer = allocator.allocateBuffer(BufferParams.deviceLocal(), 64L << (i % 4));
                        MemorySegment m = ((HeapBuffer) buffer).range("test", 0, Buffer.WHOLE_BUFFER);
                        assertEquals(-1, m.mismatch(MemorySegment.ofArray(new byte[(int) m.byteSize()])), "zeroed");
                        m.fill(mark);
                        assertEquals(mark, m.get(ValueLayout.JAVA_BYTE, m.byteSize() - 1), "no other owner");
                        buffer.release();
                    }
                    return null;
                }));
            }
            for (var f : futures) {
                f.get(60, java.util.concurrent.TimeUnit.SECONDS);
            }
        } finally {
            executor.shutdownNow();
        }
        assertEquals(0, allocator.statistics().bytesLive());
        assertTrue(allocator.idleBytes() <= HeapAllocator.RETAINED_BYTES);
        allocator.close();
    }
}
