package dev.ortho.vm;

import static dev.ortho.vm.Assertions2.assertStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.MemoryPool;
import dev.ortho.base.StatusCode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class VmBufferTest {
    private static final int RW = VmBuffer.ACCESS_MUTABLE | VmBuffer.ACCESS_ORIGIN_HOST;

    @Test
    void allocationIsZeroedAndAligned() {
        VmBuffer b = VmBuffer.allocate(RW, 100, 64);
        assertEquals(100, b.length());
        assertEquals(0, b.segment().address() % 64);
        for (int i = 0; i < 100; i++) {
            assertEquals(0, b.loadI8(i));
        }
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> VmBuffer.allocate(RW, 8, 3));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> VmBuffer.allocate(RW, -1, 8));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> VmBuffer.allocate(0x10, 8, 8));
        b.release();
    }

    @Test
    void elementIndexedLoadsAndStoresAreLittleEndian() {
        VmBuffer b = VmBuffer.allocate(RW, 16, 16);
        b.storeI32(1, 0x04030201);
        assertEquals(1, b.loadI8(4));
        assertEquals(0x0201, b.loadI16(2));
        b.storeI64(1, -2L);
        assertEquals(-2L, b.loadI64(1));
        b.storeF32(0, 1.5f);
        assertEquals(1.5f, b.loadF32(0));
        b.storeF64(1, 2.25);
        assertEquals(2.25, b.loadF64(1));
        b.storeI16(7, (short) 7);
        b.storeI8(0, (byte) 9);
    }

    @Test
    void outOfBoundsAccessIsOutOfRange() {
        VmBuffer b = VmBuffer.allocate(RW, 16, 8);
        assertStatus(StatusCode.OUT_OF_RANGE, () -> b.loadI32(4));
        assertStatus(StatusCode.OUT_OF_RANGE, () -> b.loadI64(-1));
        assertStatus(StatusCode.OUT_OF_RANGE, () -> b.storeI64(2, 0));
        assertStatus(StatusCode.OUT_OF_RANGE, () -> b.loadI8(16));
        assertStatus(StatusCode.OUT_OF_RANGE, () -> b.loadI64(Long.MAX_VALUE));
        var e = assertStatus(StatusCode.OUT_OF_RANGE, () -> b.hash(8, 9));
        assertTrue(e.getMessage().contains("buffer length=16"), e.getMessage());
    }

    @Test
    void readOnlyBuffersDenyWritesButAllowReads() {
        VmBuffer ro = VmBuffer.allocate(VmBuffer.ACCESS_ORIGIN_HOST, 8, 8);
        assertFalse(ro.isMutable());
        assertEquals(0, ro.loadI64(0));
        assertStatus(StatusCode.PERMISSION_DENIED, () -> ro.storeI32(0, 1));
        assertStatus(StatusCode.PERMISSION_DENIED, () -> ro.fillElements(0, 1, 1, 0));
        VmBuffer rw = VmBuffer.allocate(RW, 8, 8);
        assertStatus(StatusCode.PERMISSION_DENIED, () -> VmBuffer.copyBytes(rw, 0, ro, 0, 8));
        assertTrue(ro.segment().isReadOnly());
    }

    @Test
    void fillWritesPatternsOfEachWidth() {
        VmBuffer b = VmBuffer.allocate(RW, 32, 8);
        b.fillElements(1, 2, 8, 0x1122334455667788L);
        assertEquals(0x1122334455667788L, b.loadI64(2));
        assertEquals(0, b.loadI64(3));
        b.fillElements(0, 4, 2, 0xABCD);
        assertEquals((short) 0xABCD, b.loadI16(3));
        b.fillElements(0, 1, 4, 0xDEADBEEFL);
        assertEquals(0xDEADBEEF, b.loadI32(0));
        b.fillElements(31, 1, 1, 0x7F);
        assertEquals(0x7F, b.loadI8(31));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> b.fillElements(0, 1, 3, 0));
        assertStatus(StatusCode.OUT_OF_RANGE, () -> b.fillElements(3, 2, 8, 0));
    }

    @Test
    void copyCompareAndClone() {
        VmBuffer a = VmBuffer.allocate(RW, 16, 8);
        VmBuffer b = VmBuffer.allocate(RW, 16, 8);
        a.storeI64(0, 42);
        assertFalse(VmBuffer.compareBytes(a, 0, b, 0, 8));
        VmBuffer.copyBytes(a, 0, b, 8, 8);
        assertTrue(VmBuffer.compareBytes(a, 0, b, 8, 8));
        assertStatus(StatusCode.OUT_OF_RANGE, () -> VmBuffer.copyBytes(a, 12, b, 0, 8));
        assertStatus(StatusCode.OUT_OF_RANGE, () -> VmBuffer.compareBytes(a, 0, b, 9, 8));
        VmBuffer c = b.cloneRange(VmBuffer.ACCESS_ORIGIN_GUEST, 8, 8, 16);
        assertEquals(42, c.loadI64(0));
        assertFalse(c.isMutable());
        assertStatus(StatusCode.OUT_OF_RANGE, () -> b.cloneRange(RW, 9, 8, 8));
    }

    @Test
    void wrappedSegmentIsAliasedAndOwnerRetainedUntilRelease() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(8);
            TestRef owner = TestRef.a(1);
            VmBuffer view = VmBuffer.wrap(RW, seg, owner);
            assertEquals(2, owner.refCount());
            view.storeI32(1, 77);
            assertEquals(77, seg.getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, 1));
            view.release();
            assertEquals(1, owner.refCount());
            assertStatus(StatusCode.INVALID_ARGUMENT, () -> VmBuffer.wrap(RW, seg.asReadOnly(), null));
        }
    }

    @Test
    void rodataIsReadOnlyModuleOrigin() {
        MemorySegment seg = MemorySegment.ofArray(new byte[] {1, 2, 3, 4});
        VmBuffer ro = VmBuffer.rodata(seg, new Object());
        assertEquals(VmBuffer.ACCESS_ORIGIN_MODULE, ro.access());
        assertEquals(0x04030201, ro.loadI32(0));
        assertStatus(StatusCode.PERMISSION_DENIED, () -> ro.storeI8(0, (byte) 0));
    }

    @Test
    void releasedBufferFreesItsMemory() {
        VmBuffer b = VmBuffer.allocate(RW, 8, 8);
        MemorySegment seg = b.segment();
        b.release();
        assertFalse(seg.scope().isAlive(), "a buffer without a pool frees its memory to the system");
        assertStatus(StatusCode.FAILED_PRECONDITION, () -> b.loadI8(0));
    }

    @Test
    void releasedPooledBufferFailsEveryAccessAndItsMemoryIsReused() {
        try (MemoryPool pool = new MemoryPool("test", 1 << 20)) {
            VmBuffer b = VmBuffer.allocate(RW, 100, 16, HostMemoryLimit.UNLIMITED, pool);
            b.storeI32(0, 42);
            long address = b.segment().address();
            b.release();
            assertStatus(StatusCode.FAILED_PRECONDITION, () -> b.loadI32(0));
            assertStatus(StatusCode.FAILED_PRECONDITION, () -> b.storeI8(99, (byte) 1));
            assertStatus(StatusCode.FAILED_PRECONDITION, () -> b.fillElements(0, 1, 1, 0));
            assertThrows(RuntimeException.class, () -> b.segment().get(ValueLayout.JAVA_BYTE, 0),
                    "the segment of a released buffer cannot be accessed");
            assertStatus(StatusCode.FAILED_PRECONDITION, b::release);

            VmBuffer next = VmBuffer.allocate(RW, 120, 64, HostMemoryLimit.UNLIMITED, pool);
            assertEquals(address, next.segment().address(), "same size class: the block is reused");
            assertEquals(0, next.loadI32(0), "reused memory is zeroed");
            assertEquals(0, next.segment().address() % 64);
            next.release();
        }
    }

    @Test
    void pooledCloneCopiesAndChargesTheLimit() {
        HostMemoryLimit limit = HostMemoryLimit.of(1000);
        try (MemoryPool pool = new MemoryPool("test", 1 << 20)) {
            VmBuffer source = VmBuffer.allocate(RW, 64, 8, limit, pool);
            source.storeI64(3, 0x1122334455667788L);
            VmBuffer clone = source.cloneRange(RW, 24, 8, 8, limit, pool);
            assertEquals(0x1122334455667788L, clone.loadI64(0));
            assertEquals(72, limit.used());
            assertStatus(StatusCode.RESOURCE_EXHAUSTED, () -> VmBuffer.allocate(RW, 929, 8, limit, pool));
            clone.release();
            source.release();
            assertEquals(0, limit.used());
        }
    }

    @Test
    void pooledBufferOutlivesItsClosedPool() {
        MemoryPool pool = new MemoryPool("test", 1 << 20);
        VmBuffer b = VmBuffer.allocate(RW, 32, 8, HostMemoryLimit.UNLIMITED, pool);
        MemorySegment seg = b.segment();
        pool.close();
        b.storeI32(7, 5);
        assertEquals(5, b.loadI32(7));
        b.release();
        assertFalse(seg.scope().isAlive(), "freed into a closed pool, the memory goes back to the system");
    }

    @Test
    void hashMatchesPublishedSipHash24Vectors() throws IOException {
        List<Long> expected = new ArrayList<>();
        try (var in = getClass().getResourceAsStream("siphash24_vectors.txt");
             var reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII))) {
            for (String line; (line = reader.readLine()) != null; ) {
                if (!line.startsWith("#") && !line.isBlank()) {
                    expected.add(Long.parseUnsignedLong(line.trim(), 16));
                }
            }
        }
        assertEquals(64, expected.size());
        VmBuffer b = VmBuffer.allocate(RW, 64 + 3, 8);
        for (int i = 0; i < 64; i++) {
            b.storeI8(3 + i, (byte) i);
        }
        for (int n = 0; n < 64; n++) {
            assertEquals(expected.get(n), b.hash(3, n), "vector " + n);
        }
    }
}
