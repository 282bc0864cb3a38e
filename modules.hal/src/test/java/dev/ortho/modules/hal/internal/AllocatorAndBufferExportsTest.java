package dev.ortho.modules.hal.internal;

import static dev.ortho.modules.hal.internal.Harness.p;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.MemoryType;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.VmBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AllocatorAndBufferExportsTest {
    static final int HOST = MemoryType.HOST_LOCAL | MemoryType.DEVICE_VISIBLE;
    static final int USAGE = BufferUsage.DEFAULT | BufferUsage.MAPPING;

    Harness h;
    RefObject device;
    RefObject allocator;

    @BeforeEach
    void setUp() {
        h = new Harness();
        device = h.call("devices.get", p(0)).takeRef(0);
        allocator = h.call("device.allocator", p(), device).takeRef(0);
    }

    @AfterEach
    void tearDown() {
        allocator.release();
        device.release();
        h.close();
    }

    RefObject allocate(long size) {
        return h.call("allocator.allocate", p(-1, HOST, USAGE, size), allocator).takeRef(0);
    }

    @Test
    void deviceAllocatorIsTheDevicesAllocator() {
        assertSame(h.device.allocator(), HalRefs.allocator(allocator));
        h.fails(StatusCode.INVALID_ARGUMENT, "device.allocator", p(), allocator);
        h.fails(StatusCode.INVALID_ARGUMENT, "device.allocator", p(), (RefObject) null);
    }

    @Test
    void allocateReturnsABufferOfTheRequestedSizeAndTypes() {
        RefObject ref = allocate(256);
        try (Harness.Results length = h.call("buffer.length", p(), ref)) {
            Buffer buffer = HalRefs.buffer(ref);
            assertEquals(256, buffer.byteLength());
            assertEquals(256, length.i64(0));
            assertTrue(MemoryType.has(buffer.memoryType(), MemoryType.HOST_LOCAL));
        } finally {
            ref.release();
        }
    }

    @Test
    void allocateFailuresCarryIreeCodesAndTheLength() {
        StatusException e = h.fails(StatusCode.INVALID_ARGUMENT, "allocator.allocate", p(-1, HOST, USAGE, -5),
                allocator);
        assertTrue(e.getMessage().contains("failed to allocate buffer of length -5"), e.getMessage());
        h.fails(StatusCode.INVALID_ARGUMENT, "allocator.allocate", p(-1, HOST, USAGE, 16), device);
        h.fails(StatusCode.INVALID_ARGUMENT, "allocator.allocate", p(-1, HOST, USAGE, 16), (RefObject) null);
    }

    @Test
    void importAliasesMutableVmBufferMemoryAndKeepsItAlive() {
        VmBuffer source = VmBuffer.allocate(VmBuffer.ACCESS_MUTABLE | VmBuffer.ACCESS_ORIGIN_HOST, 128, 64);
        RefObject imported = h.call("allocator.import", p(0, -1, HOST, USAGE, 64, 32), allocator, source).takeRef(0);
        source.storeI32(64 / 4, 0x01020304);
        source.release(); // the imported buffer keeps the vm.buffer alive
        try (Harness.Results load = h.call("buffer.load", p(0, 4), imported)) {
            assertEquals(0x01020304, load.i32(0));
            h.run("buffer.store", p(0x55, 4, 1), imported);
            assertEquals(0x55, source.loadI8(64 + 4));
            assertEquals(32, HalRefs.buffer(imported).byteLength());
        } finally {
            imported.release();
        }
    }

    @Test
    void importChecksRangesAccessAndHonoursTry() {
        VmBuffer mutable = VmBuffer.allocate(VmBuffer.ACCESS_MUTABLE, 128, 64);
        VmBuffer immutable = VmBuffer.allocate(0, 128, 64);
        try {
            h.fails(StatusCode.INVALID_ARGUMENT, "allocator.import", p(0, -1, HOST, USAGE, 100, 64), allocator,
                    mutable);
            h.fails(StatusCode.INVALID_ARGUMENT, "allocator.import", p(0, -1, HOST, USAGE, -1, 8), allocator, mutable);
            h.fails(StatusCode.INVALID_ARGUMENT, "allocator.import", p(0, -1, HOST, USAGE, 64, -1), allocator,
                    mutable); // -1 means the whole buffer, which does not fit after offset 64 (as IREE)
            try (Harness.Results whole = h.call("allocator.import", p(0, -1, HOST, USAGE, 0, -1), allocator,
                    mutable)) {
                assertEquals(128, HalRefs.buffer(whole.ref(0)).byteLength());
            }
            h.fails(StatusCode.PERMISSION_DENIED, "allocator.import", p(0, -1, HOST, USAGE, 0, 64), allocator,
                    immutable);
            try (Harness.Results constant = h.call("allocator.import",
                    p(0, -1, HOST, USAGE | BufferUsage.SHARING_IMMUTABLE, 0, 64), allocator, immutable)) {
                assertNotNull(constant.ref(0));
            }
            // unaligned memory cannot be imported: an error, or null with try
            h.fails(StatusCode.INVALID_ARGUMENT, "allocator.import", p(0, -1, HOST, USAGE, 1, 8), allocator, mutable);
            try (Harness.Results tried = h.call("allocator.import", p(1, -1, HOST, USAGE, 1, 8), allocator, mutable)) {
                assertNull(tried.ref(0));
            }
            h.fails(StatusCode.INVALID_ARGUMENT, "allocator.import", p(0, -1, HOST, USAGE, 0, 8), allocator, device);
            assertEquals(1, mutable.refCount(), "failed imports give the vm.buffer reference back");
        } finally {
            mutable.release();
            immutable.release();
        }
    }

    @Test
    void selectReturnsTheFirstDeviceAndAffinity() {
        try (Harness.Results r = h.call("allocator.select", p(HOST, USAGE, 0, 2, 5, 9), device, device)) {
            assertSame(device, r.ref(0));
            assertEquals(5, r.i64(0));
        }
        StatusException e = h.fails(StatusCode.INVALID_ARGUMENT, "allocator.select", p(HOST, USAGE, 0, 0));
        assertTrue(e.getMessage().contains("at least one device"), e.getMessage());
        h.fails(StatusCode.INVALID_ARGUMENT, "allocator.select", p(HOST, USAGE, 0, 1, 0), allocator);
        h.fails(StatusCode.INVALID_ARGUMENT, "allocator.select", p(HOST, USAGE, 0, 2, 0), device);
    }

    @Test
    void bufferAssertChecksLengthMemoryTypeAndUsage() {
        RefObject buffer = allocate(64);
        VmBuffer message = Harness.string("tensor");
        try {
            h.run("buffer.assert", p(64, MemoryType.HOST_VISIBLE, BufferUsage.TRANSFER), buffer, message, allocator);
            StatusException shortBuffer = h.fails(StatusCode.INVALID_ARGUMENT, "buffer.assert", p(65, 0, 0), buffer,
                    message, allocator);
            assertTrue(shortBuffer.getMessage().contains("tensor buffer byte length 64 less than expected minimum 65"),
                    shortBuffer.getMessage());
            h.fails(StatusCode.PERMISSION_DENIED, "buffer.assert", p(0, MemoryType.DEVICE_LOCAL, 0), buffer, message,
                    allocator);
            h.fails(StatusCode.PERMISSION_DENIED, "buffer.assert", p(0, 0, BufferUsage.SHARING_EXPORT), buffer,
                    message, allocator);
            h.fails(StatusCode.INVALID_ARGUMENT, "buffer.assert", p(0, 0, 0), buffer, message, null);
            h.fails(StatusCode.INVALID_ARGUMENT, "buffer.assert", p(0, 0, 0), buffer, null, allocator);
            h.fails(StatusCode.INVALID_ARGUMENT, "buffer.assert", p(0, 0, 0), allocator, message, allocator);
        } finally {
            message.release();
            buffer.release();
        }
    }

    @Test
    void allocationPreserveDiscardAndTerminalTrackOwnersOfTheRootAllocation() {
        RefObject buffer = allocate(64);
        RefObject subspan = h.call("buffer.subspan", p(16, 16), buffer).takeRef(0);
        try {
            assertEquals(1, h.call("buffer.allocation.is_terminal", p(), buffer).i32(0));
            h.run("buffer.allocation.preserve", p(), subspan); // counts on the root allocation
            assertEquals(0, h.call("buffer.allocation.is_terminal", p(), buffer).i32(0));
            assertEquals(0, h.call("buffer.allocation.discard", p(), buffer).i32(0));
            assertEquals(1, h.call("buffer.allocation.is_terminal", p(), subspan).i32(0));
            assertEquals(1, h.call("buffer.allocation.discard", p(), buffer).i32(0), "last owner");
            h.fails(StatusCode.INVALID_ARGUMENT, "buffer.allocation.preserve", p(), allocator);
            h.fails(StatusCode.INVALID_ARGUMENT, "buffer.allocation.discard", p(), (RefObject) null);
            h.fails(StatusCode.INVALID_ARGUMENT, "buffer.allocation.is_terminal", p(), device);
        } finally {
            subspan.release();
            buffer.release();
        }
    }

    @Test
    void loadAndStoreAreLittleEndianScalarsOfUpToFourBytes() {
        RefObject buffer = allocate(16);
        try {
            h.run("buffer.store", p(0x11223344, 0, 4), buffer);
            assertEquals(0x11223344, h.call("buffer.load", p(0, 4), buffer).i32(0));
            assertEquals(0x3344, h.call("buffer.load", p(0, 2), buffer).i32(0));
            assertEquals(0x22, h.call("buffer.load", p(2, 1), buffer).i32(0));
            assertEquals(0, h.call("buffer.load", p(16, 0), buffer).i32(0));
            h.run("buffer.store", p(0xAABB, 14, 2), buffer);
            assertEquals(0xAABB, h.call("buffer.load", p(14, 2), buffer).i32(0));
            h.run("buffer.store", p(-1, 4, 1), buffer);
            assertEquals(0xFF, h.call("buffer.load", p(4, 1), buffer).i32(0), "loads zero-extend");

            h.fails(StatusCode.INVALID_ARGUMENT, "buffer.load", p(0, 5), buffer);
            h.fails(StatusCode.INVALID_ARGUMENT, "buffer.load", p(0, -1), buffer);
            h.fails(StatusCode.OUT_OF_RANGE, "buffer.load", p(13, 4), buffer);
            h.fails(StatusCode.INVALID_ARGUMENT, "buffer.store", p(1, 0, 8), buffer);
            StatusException e = h.fails(StatusCode.OUT_OF_RANGE, "buffer.store", p(1, 13, 4), buffer);
            assertTrue(e.getMessage().contains("store out of bounds (target_offset=13, length=4 into max 16)"),
                    e.getMessage());
            h.fails(StatusCode.OUT_OF_RANGE, "buffer.store", p(1, -4, 4), buffer);
            h.fails(StatusCode.INVALID_ARGUMENT, "buffer.load", p(0, 4), allocator);
        } finally {
            buffer.release();
        }
    }

    @Test
    void subspanViewsTheSameMemoryAndChecksItsRange() {
        RefObject buffer = allocate(64);
        try (Harness.Results sub = h.call("buffer.subspan", p(8, 16), buffer)) {
            assertEquals(16, h.call("buffer.length", p(), sub.ref(0)).i64(0));
            h.run("buffer.store", p(0x7F, 0, 1), sub.ref(0));
            assertEquals(0x7F, h.call("buffer.load", p(8, 1), buffer).i32(0));
            StatusException e = h.fails(StatusCode.OUT_OF_RANGE, "buffer.subspan", p(60, 8), buffer);
            assertTrue(e.getMessage().contains("source_offset=60, length=8"), e.getMessage());
            h.fails(StatusCode.INVALID_ARGUMENT, "buffer.length", p(), device);
        } finally {
            buffer.release();
        }
    }
}
