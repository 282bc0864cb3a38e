package dev.ortho.modules.hal.internal;

import static dev.ortho.modules.hal.internal.Harness.p;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.Device;
import dev.ortho.hal.MemoryType;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.VmBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DeviceExportsTest {
    static final long TYPES = MemoryType.DEVICE_LOCAL;
    static final long USAGE = BufferUsage.DEFAULT | BufferUsage.MAPPING;

    Harness h;
    RefObject device;
    RefObject allocator;
    RefObject buffer;

    @BeforeEach
    void setUp() {
        h = new Harness();
        device = h.call("devices.get", p(0)).takeRef(0);
        allocator = h.call("device.allocator", p(), device).takeRef(0);
        buffer = h.call("allocator.allocate", p(-1, AllocatorAndBufferExportsTest.HOST,
                AllocatorAndBufferExportsTest.USAGE, 64), allocator).takeRef(0);
    }

    @AfterEach
    void tearDown() {
        buffer.release();
        allocator.release();
        device.release();
        h.close();
    }

    RefObject fence() {
        return h.call("fence.create", p(0), device).takeRef(0);
    }

    int query(RefObject fence) {
        return h.call("fence.query", p(), fence).i32(0);
    }

    int load(RefObject target, long offset) {
        return h.call("buffer.load", p(offset, 4), target).i32(0);
    }

    long[] query(String category, String key) {
        VmBuffer c = Harness.string(category);
        VmBuffer k = Harness.string(key);
        try (Harness.Results r = h.call("device.query.i64", p(), device, c, k)) {
            return new long[] {r.i32(0), r.i64(1)};
        } finally {
            c.release();
            k.release();
        }
    }

    @Test
    void allocatorIsOneRefPerDeviceOnEveryCall() {
        // IREE returns the device's allocator object itself, so vm.cmp.eq.ref holds between two
        // calls; a new ref per call also cost an allocation and a count on the device.
        RefObject wrapped = HalRefs.wrap(HalRefs.device(device)); // another ref to the module's device
        try (Harness.Results again = h.call("device.allocator", p(), device);
                Harness.Results viaWrapped = h.call("device.allocator", p(), wrapped)) {
            assertSame(allocator, again.ref(0));
            assertSame(allocator, viaWrapped.ref(0));
        } finally {
            wrapped.release();
        }
        // a device the module does not have gets a ref of its own, which keeps that device open
        Device other = Harness.localSync();
        RefObject otherRef = HalRefs.wrap(other);
        other.release();
        try (Harness.Results foreign = h.call("device.allocator", p(), otherRef)) {
            assertNotSame(allocator, foreign.ref(0));
            otherRef.release();
            assertEquals(0, HalRefs.allocator(foreign.ref(0)).statistics().bytesLive());
        }
    }

    @Test
    void queryI64AnswersKnownKeysAndReportsUnknownOnesAsNotOk() {
        assertEquals(1, query("hal.device.id", "local-*")[0]);
        assertEquals(1, query("hal.device.id", "local-*")[1]);
        assertEquals(0, query("hal.device.id", "cuda")[1]);
        assertEquals(1, query("hal.executable.format", "jvm-static")[1]);
        long[] unknown = query("hal.nonsense", "key");
        assertEquals(0, unknown[0]);
        assertEquals(0, unknown[1]);
        h.fails(StatusCode.INVALID_ARGUMENT, "device.query.i64", p(), device, null, null);
    }

    @Test
    void allocaSignalsItsFenceAndDeallocaFreesTheMemory() {
        RefObject signal = fence();
        RefObject freed = fence();
        try {
            long served = h.device.defaultPool().statistics().reservationCount();
            RefObject allocated = h.call("device.queue.alloca", p(-1, 0, TYPES, USAGE, 128, 0), device, null, signal)
                    .takeRef(0);
            try {
                assertEquals(0, query(signal));
                assertEquals(served + 1, h.device.defaultPool().statistics().reservationCount(),
                        "pool 0 is the device's default pool");
                assertEquals(128, h.call("buffer.length", p(), allocated).i64(0));
                h.run("buffer.store", p(42, 0, 4), allocated);
                h.run("device.queue.dealloca", p(-1, 0), device, signal, freed, allocated);
                assertEquals(0, query(freed));
                h.fails(StatusCode.FAILED_PRECONDITION, "buffer.load", p(0, 4), allocated);
            } finally {
                allocated.release();
            }
            StatusException pool = h.fails(StatusCode.UNIMPLEMENTED, "device.queue.alloca",
                    p(-1, 7, TYPES, USAGE, 128, 0), device, null, null);
            assertTrue(pool.getMessage().contains("pools"), pool.getMessage());
            h.fails(StatusCode.INVALID_ARGUMENT, "device.queue.alloca", p(-1, 0, TYPES, USAGE, -1, 0), device, null,
                    null);
            h.fails(StatusCode.INVALID_ARGUMENT, "device.queue.alloca", p(-1, 0, TYPES, USAGE, 8, 0), device, buffer,
                    null);
            h.fails(StatusCode.INVALID_ARGUMENT, "device.queue.dealloca", p(-1, 0), device, null, null, null);
        } finally {
            signal.release();
            freed.release();
        }
    }

    @Test
    void fillUpdateAndCopyRunAfterTheirWaitsAndSignal() {
        RefObject ready = fence();
        RefObject filled = fence();
        RefObject updated = fence();
        RefObject copied = fence();
        RefObject target = h.call("allocator.allocate", p(-1, AllocatorAndBufferExportsTest.HOST,
                AllocatorAndBufferExportsTest.USAGE, 64), allocator).takeRef(0);
        VmBuffer source = Harness.bytes(new byte[] {9, 9, 1, 2, 3, 4});
        try {
            h.run("fence.signal", p(), ready);
            h.run("device.queue.fill", p(-1, 0, 32, 0x5A5A, 2, 0), device, ready, filled, buffer);
            h.run("device.queue.update", p(-1, 2, 32, 4, 0), device, filled, updated, source, buffer);
            h.run("device.queue.copy", p(-1, 28, 0, 8, 0), device, updated, copied, buffer, target);
            h.run("device.queue.barrier", p(-1, 0), device, copied, null);
            h.run("device.queue.flush", p(-1), device);
            assertEquals(0, query(copied));
            assertEquals(0x5A5A5A5A, load(buffer, 0));
            assertEquals(0x04030201, load(buffer, 32));
            assertEquals(0x5A5A5A5A, load(target, 0));
            assertEquals(0x04030201, load(target, 4));

            h.fails(StatusCode.INVALID_ARGUMENT, "device.queue.fill", p(-1, 0, 8, 0, 3, 0), device, null, null,
                    buffer);
            h.fails(StatusCode.OUT_OF_RANGE, "device.queue.update", p(-1, 4, 0, 8, 0), device, null, null, source,
                    buffer);
            h.fails(StatusCode.INVALID_ARGUMENT, "device.queue.update", p(-1, 0, 0, 4, 0), device, null, null, buffer,
                    buffer);
            h.fails(StatusCode.INVALID_ARGUMENT, "device.queue.copy", p(-1, 0, 8, 8, 0), device, null, null, buffer,
                    allocator);
            h.fails(StatusCode.INVALID_ARGUMENT, "device.queue.barrier", p(-1, 0), allocator, null, null);
            h.fails(StatusCode.INVALID_ARGUMENT, "device.queue.flush", p(-1), buffer);
        } finally {
            source.release();
            target.release();
            ready.release();
            filled.release();
            updated.release();
            copied.release();
        }
    }

    @Test
    void aFailedWaitFailsTheSignalFenceWithTheSameStatus() {
        RefObject failed = fence();
        RefObject signal = fence();
        try {
            h.run("fence.fail", p(StatusCode.DATA_LOSS.value()), failed);
            h.run("device.queue.barrier", p(-1, 0), device, failed, signal);
            assertEquals(StatusCode.DATA_LOSS.value(), query(signal));
        } finally {
            failed.release();
            signal.release();
        }
    }

    @Test
    void executeRejectsWrongTypes() {
        h.fails(StatusCode.INVALID_ARGUMENT, "device.queue.execute", p(-1, 0), device, null, null, buffer);
        h.fails(StatusCode.INVALID_ARGUMENT, "device.queue.execute", p(-1, 0), device, null, null, null);
        h.fails(StatusCode.INVALID_ARGUMENT, "device.queue.execute", p(-1, 0), device, buffer, null, null);
    }

    @Test
    void memoryFileReadsLargerThanAQueueUpdateAreCopiedWhole() {
        int size = 3 * 64 * 1024 + 12; // above IREE's 64 KiB update limit, not a multiple of it
        byte[] data = new byte[size];
        for (int i = 0; i < size; i++) {
            data[i] = (byte) (i * 31 + 7);
        }
        VmBuffer contents = Harness.bytes(data);
        RefObject signal = fence();
        RefObject target = h.call("allocator.allocate", p(-1, AllocatorAndBufferExportsTest.HOST,
                AllocatorAndBufferExportsTest.USAGE, size + 16), allocator).takeRef(0);
        try {
            RefObject file = h.call("ex.file.from_memory", p(-1, 1, 0, size, 0), device, contents).takeRef(0);
            try {
                h.run("device.queue.read", p(-1, 0, 16, size, 0), device, null, signal, file, target);
                assertEquals(0, query(signal));
                for (int offset : new int[] {0, 64 * 1024 - 4, 64 * 1024, size - 4}) {
                    int expected = (data[offset] & 0xFF) | (data[offset + 1] & 0xFF) << 8
                            | (data[offset + 2] & 0xFF) << 16 | (data[offset + 3] & 0xFF) << 24;
                    assertEquals(expected, load(target, 16 + offset), "offset " + offset);
                }
            } finally {
                file.release();
            }
        } finally {
            target.release();
            signal.release();
            contents.release();
        }
    }

    @Test
    void memoryFilesAreReadInQueueOrderAndCannotBeWritten() {
        VmBuffer contents = Harness.bytes(new byte[] {0, 0, 0, 0, 0x10, 0x20, 0x30, 0x40, 0x50});
        RefObject signal = fence();
        try {
            RefObject file = h.call("ex.file.from_memory", p(-1, 1, 4, 5, 0), device, contents).takeRef(0);
            contents.release(); // the file keeps its memory alive
            contents = null;
            try {
                h.run("device.queue.read", p(-1, 0, 8, 4, 0), device, null, signal, file, buffer);
                assertEquals(0, query(signal));
                assertEquals(0x40302010, load(buffer, 8));
                h.fails(StatusCode.OUT_OF_RANGE, "device.queue.read", p(-1, 2, 0, 4, 0), device, null, null, file,
                        buffer);
                h.fails(StatusCode.PERMISSION_DENIED, "device.queue.write", p(-1, 0, 0, 4, 0), device, null, null,
                        buffer, file);
                h.fails(StatusCode.INVALID_ARGUMENT, "device.queue.read", p(-1, 0, 0, 4, 0), device, null, null,
                        buffer, buffer);
                h.fails(StatusCode.INVALID_ARGUMENT, "device.queue.write", p(-1, 0, 0, 4, 0), device, null, null,
                        buffer, buffer);
            } finally {
                file.release();
            }
        } finally {
            if (contents != null) {
                contents.release();
            }
            signal.release();
        }
    }

    @Test
    void fileFromMemoryIsReadOnlyAndBoundsChecked() {
        VmBuffer contents = Harness.bytes(new byte[16]);
        try {
            h.fails(StatusCode.PERMISSION_DENIED, "ex.file.from_memory", p(-1, 3, 0, 16, 0), device, contents);
            h.fails(StatusCode.OUT_OF_RANGE, "ex.file.from_memory", p(-1, 1, 8, 16, 0), device, contents);
            h.fails(StatusCode.OUT_OF_RANGE, "ex.file.from_memory", p(-1, 1, -1, 4, 0), device, contents);
            h.fails(StatusCode.INVALID_ARGUMENT, "ex.file.from_memory", p(-1, 1, 0, 16, 0), buffer, contents);
            h.fails(StatusCode.INVALID_ARGUMENT, "ex.file.from_memory", p(-1, 1, 0, 16, 0), device, buffer);
        } finally {
            contents.release();
        }
    }

    @Test
    void executablesArePreparedForModuleDevicesOnly() {
        VmBuffer format = Harness.string("jvm-static");
        VmBuffer data = Harness.string("library=builtin\nfunctions=fill_x32,copy_x32\n");
        VmBuffer badConstants = Harness.bytes(new byte[6]);
        VmBuffer constants = Harness.bytes(new byte[8]);
        VmBuffer unknownFormat = Harness.string("embedded-elf-x86_64");
        VmBuffer missing = Harness.string("matmul_f32");
        VmBuffer copy = Harness.string("copy_x32");
        Device other = Harness.localSync();
        RefObject otherRef = HalRefs.wrap(other);
        try {
            try (Harness.Results exe = h.call("executable.create", p(-1), device, format, data, null)) {
                assertEquals(2, HalRefs.executable(exe.ref(0)).functionCount());
                assertEquals(1, h.call("executable.lookup.function", p(), exe.ref(0), copy).i64(0));
                h.fails(StatusCode.NOT_FOUND, "executable.lookup.function", p(), exe.ref(0), missing);
                h.fails(StatusCode.INVALID_ARGUMENT, "executable.lookup.function", p(), buffer, copy);
            }
            StatusException odd = h.fails(StatusCode.INVALID_ARGUMENT, "executable.create", p(-1), device, format,
                    data, badConstants);
            assertTrue(odd.getMessage().contains("data length is 6"), odd.getMessage());
            StatusException twoConstants = h.fails(StatusCode.INVALID_ARGUMENT, "executable.create", p(-1), device,
                    format, data, constants);
            assertTrue(twoConstants.getMessage().contains("2 executable constants"), twoConstants.getMessage());
            h.fails(StatusCode.INCOMPATIBLE, "executable.create", p(-1), device, unknownFormat, data, null);
            h.fails(StatusCode.NOT_FOUND, "executable.create", p(-1), otherRef, format, data, null);
            h.fails(StatusCode.INVALID_ARGUMENT, "executable.create", p(-1), device, format, buffer, null);
            h.fails(StatusCode.INVALID_ARGUMENT, "executable.create", p(-1), device, format, data, buffer);
        } finally {
            otherRef.release();
            other.release();
            for (VmBuffer b : new VmBuffer[] {format, data, badConstants, constants, unknownFormat, missing, copy}) {
                b.release();
            }
        }
    }

    @Test
    void channelsAreUnimplementedAndTheirArgumentsChecked() {
        VmBuffer group = Harness.string("world");
        try {
            StatusException e = h.fails(StatusCode.UNIMPLEMENTED, "channel.create", p(-1, 0, 0, 1), device, null,
                    group);
            assertTrue(e.getMessage().contains("collective channels"), e.getMessage());
            h.fails(StatusCode.INVALID_ARGUMENT, "channel.create", p(-1, 0, 0, 1), buffer, null, group);
            h.fails(StatusCode.INVALID_ARGUMENT, "channel.create", p(-1, 0, 0, 1), device, buffer, group);
            h.fails(StatusCode.INVALID_ARGUMENT, "channel.split", p(0, 0, 0), (RefObject) null);
            h.fails(StatusCode.INVALID_ARGUMENT, "channel.split", p(0, 0, 0), device);
            h.fails(StatusCode.INVALID_ARGUMENT, "channel.rank_and_count", p(), device);
        } finally {
            group.release();
        }
    }
}
