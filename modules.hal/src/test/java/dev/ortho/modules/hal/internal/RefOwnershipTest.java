package dev.ortho.modules.hal.internal;

import static dev.ortho.modules.hal.internal.Harness.p;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ortho.base.StatusCode;
import dev.ortho.hal.Allocator;
import dev.ortho.hal.ElementType;
import dev.ortho.hal.EncodingType;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.VmBuffer;
import org.junit.jupiter.api.Test;

/**
 * VM refs own one reference on their HAL object: memory lives exactly as long as some ref (or HAL
 * object such as a view or a command buffer) still holds it, and releasing the last ref frees it.
 */
class RefOwnershipTest {
    static long live(Allocator allocator) {
        return allocator.statistics().bytesLive();
    }

    @Test
    void bufferMemoryIsFreedWhenItsLastRefGoes() {
        try (Harness h = new Harness()) {
            RefObject device = h.call("devices.get", p(0)).takeRef(0);
            RefObject allocator = h.call("device.allocator", p(), device).takeRef(0);
            Allocator hal = HalRefs.allocator(allocator);
            long before = live(hal);
            RefObject buffer = h.call("allocator.allocate", p(-1, AllocatorAndBufferExportsTest.HOST,
                    AllocatorAndBufferExportsTest.USAGE, 4096), allocator).takeRef(0);
            assertEquals(before + 4096, live(hal));
            RefObject subspan = h.call("buffer.subspan", p(0, 16), buffer).takeRef(0);
            RefObject view = h.call("buffer_view.create",
                    p(0, 16, ElementType.FLOAT_32, EncodingType.DENSE_ROW_MAJOR, 1, 4), subspan).takeRef(0);
            RefObject viewed = h.call("buffer_view.buffer", p(), view).takeRef(0);
            buffer.release();
            subspan.release();
            assertEquals(before + 4096, live(hal), "the view still holds the allocation");
            view.release();
            assertEquals(before + 4096, live(hal), "the ref from buffer_view.buffer still holds it");
            viewed.release();
            assertEquals(before, live(hal));
            Harness.expect(StatusCode.FAILED_PRECONDITION, viewed::release);
            allocator.release();
            device.release();
        }
    }

    @Test
    void allocatorRefKeepsItsDeviceOpen() {
        dev.ortho.hal.Device device = Harness.localSync();
        RefObject allocator = HalRefs.wrapAllocator(device);
        device.release(); // only the allocator ref holds the device now
        assertEquals(0, live(HalRefs.allocator(allocator)));
        device.createEvent().release(); // still open
        allocator.release();
        Harness.expect(StatusCode.FAILED_PRECONDITION, device::createEvent);
    }

    @Test
    void wrappingNullGivesANullRefAndUnwrappingChecksTheType() {
        assertEquals(null, HalRefs.wrap((dev.ortho.hal.Buffer) null));
        assertEquals(null, HalRefs.wrapAllocator(null));
        assertEquals(null, HalRefs.fence(null));
        dev.ortho.hal.Device device = Harness.localSync();
        RefObject ref = HalRefs.wrap(device);
        VmBuffer bytes = VmBuffer.allocate(0, 1, 1);
        try {
            Harness.expect(StatusCode.INVALID_ARGUMENT, () -> HalRefs.buffer(ref));
            Harness.expect(StatusCode.INVALID_ARGUMENT, () -> HalRefs.bufferView(bytes));
        } finally {
            bytes.release();
            ref.release();
            device.release();
        }
    }
}
