package dev.ortho.hal.cts;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferView;
import dev.ortho.hal.Device;
import dev.ortho.hal.ElementType;
import dev.ortho.hal.EncodingType;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.text.BufferViewText;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * Buffer view conformance: IREE's text form parsed into device buffers and formatted back,
 * views over buffers filled by the device, metadata, indexing and creation errors.
 */
public abstract class BufferViewSuite extends DeviceTestBase {

    private BufferView parse(String text) {
        return BufferViewText.parse(text, device);
    }

    private void assertRoundTrip(String text, String formatted) {
        try (BufferView view = parse(text)) {
            assertEquals(formatted, BufferViewText.format(view), text);
            try (BufferView again = parse(formatted)) {
                assertEquals(formatted, BufferViewText.format(again), "re-parse of " + formatted);
            }
        }
    }

    @Test
    void parsedViewsHoldTheirMetadataAndBytes() {
        try (BufferView view = parse("2x2xf32=[1 2][3 4]")) {
            assertArrayEquals(new long[] {2, 2}, view.shape());
            assertEquals(2, view.rank());
            assertEquals(ElementType.FLOAT_32, view.elementType());
            assertEquals(EncodingType.DENSE_ROW_MAJOR, view.encodingType());
            assertEquals(4, view.elementCount());
            assertEquals(16, view.byteLength());
            MemorySegment bytes = MemorySegment.ofArray(new byte[16]);
            view.buffer().read(0, bytes);
            assertArrayEquals(new float[] {1, 2, 3, 4}, bytes.toArray(F32));
        }
    }

    @Test
    void ireeTextFormsRoundTrip() {
        assertRoundTrip("2x2xf32=[1 2][3 4]", "2x2xf32=[1 2][3 4]");
        assertRoundTrip("4xi8=1,2,3,4", "4xi8=1 2 3 4");
        assertRoundTrip("f32=1.5", "f32=1.5");
        assertRoundTrip("2x3xi32=7", "2x3xi32=[7 7 7][7 7 7]");
        assertRoundTrip("2x2x2xsi16=1 -2 3 -4 5 -6 7 -8", "2x2x2xsi16=[[1 -2][3 -4]][[5 -6][7 -8]]");
        assertRoundTrip("3xui8=255 0 128", "3xui8=255 0 128");
        assertRoundTrip("2xf16=1.5 -2", "2xf16=1.5 -2");
        assertRoundTrip("2xbf16=0.5 -3", "2xbf16=0.5 -3");
        assertRoundTrip("2xf64=0.25 1e+06", "2xf64=0.25 1E+06");
        assertRoundTrip("\"3xi1=01 00 01\"", "3xi1=01 00 01"); // IREE prints and parses i1 as hex bytes
        assertRoundTrip("2x0xf32=", "2x0xf32=[][]");
    }

    @Test
    void formatStopsAtTheElementLimit() {
        try (BufferView view = parse("4xi32=1 2 3 4")) {
            assertEquals("4xi32=1 2...", BufferViewText.format(view, 2));
            assertEquals("4xi32=1 2 3 4", BufferViewText.format(view, 4));
            assertStatus(StatusCode.INVALID_ARGUMENT, () -> BufferViewText.format(view, -1));
        }
    }

    @Test
    void viewsOverDeviceFilledBuffersFormatTheirContents() {
        try (BufferView view = BufferView.allocate(device.allocator(), BufferParams.hostLocal(), new long[] {2, 3},
                ElementType.INT_32); Semaphore done = device.createSemaphore(0)) {
            assertEquals("2x3xi32=[0 0 0][0 0 0]", BufferViewText.format(view));
            device.queueFill(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(), SemaphoreList.of(done, 1),
                    view.buffer(), 0, view.byteLength(), 5, 4, 0);
            device.queueUpdate(Device.QUEUE_AFFINITY_ANY, SemaphoreList.of(done, 1), SemaphoreList.of(done, 2),
                    i32(-9), view.buffer(), view.computeOffset(1, 2), 0);
            done.await(2, Timeout.infinite());
            assertEquals("2x3xi32=[5 5 5][5 5 -9]", BufferViewText.format(view));
        }
    }

    @Test
    void aViewKeepsItsBufferAliveUntilItsLastRelease() {
        Buffer buffer = ints(1, 2, 3, 4);
        BufferView view = BufferView.create(buffer, new long[] {2, 2}, ElementType.INT_32,
                EncodingType.DENSE_ROW_MAJOR);
        buffer.release();
        view.retain();
        view.release();
        assertSame(buffer, view.buffer());
        assertEquals("2x2xi32=[1 2][3 4]", BufferViewText.format(view));
        view.release();
        assertEquals(0, device.allocator().statistics().bytesLive());
    }

    @Test
    void offsetsFollowRowMajorOrderAndCheckTheirIndices() {
        try (BufferView view = parse("2x3xf32=0")) {
            assertEquals(0, view.computeOffset(0, 0));
            assertEquals(20, view.computeOffset(1, 2));
            var e = assertStatus(StatusCode.OUT_OF_RANGE, () -> view.computeOffset(1, 3));
            assertTrue(e.getMessage().contains("index[1]") && e.getMessage().contains("3"), e.getMessage());
            assertStatus(StatusCode.INVALID_ARGUMENT, () -> view.computeOffset(1));
            assertEquals(3, view.dim(1));
            assertStatus(StatusCode.OUT_OF_RANGE, () -> view.dim(2));
        }
        try (Buffer two = allocate(2);
                BufferView packed = BufferView.create(two, new long[] {4}, ElementType.INT_4,
                        EncodingType.DENSE_ROW_MAJOR)) {
            assertEquals(2, packed.byteLength());
            assertStatus(StatusCode.INVALID_ARGUMENT, () -> packed.computeOffset(1));
        }
    }

    @Test
    void creationNamesTheArgumentThatIsWrong() {
        try (Buffer buffer = allocate(16)) {
            assertStatus(StatusCode.INVALID_ARGUMENT,
                    () -> BufferView.create(null, new long[] {4}, ElementType.INT_32, EncodingType.DENSE_ROW_MAJOR));
            assertStatus(StatusCode.INVALID_ARGUMENT,
                    () -> BufferView.create(buffer, null, ElementType.INT_32, EncodingType.DENSE_ROW_MAJOR));
            var negative = assertStatus(StatusCode.OUT_OF_RANGE, () -> BufferView.create(buffer, new long[] {2, -1},
                    ElementType.INT_32, EncodingType.DENSE_ROW_MAJOR));
            assertTrue(negative.getMessage().contains("shape[1] = -1"), negative.getMessage());
            var tooBig = assertStatus(StatusCode.OUT_OF_RANGE, () -> BufferView.create(buffer, new long[] {5},
                    ElementType.INT_32, EncodingType.DENSE_ROW_MAJOR));
            assertTrue(tooBig.getMessage().contains("20") && tooBig.getMessage().contains("16"), tooBig.getMessage());
            var type = assertStatus(StatusCode.INVALID_ARGUMENT, () -> BufferView.create(buffer, new long[] {4},
                    0x10000120, EncodingType.DENSE_ROW_MAJOR));
            assertTrue(type.getMessage().contains("10000120"), type.getMessage());
            var encoding = assertStatus(StatusCode.INVALID_ARGUMENT, () -> BufferView.create(buffer, new long[] {4},
                    ElementType.INT_32, 7));
            assertTrue(encoding.getMessage().contains("7"), encoding.getMessage());
            assertStatus(StatusCode.OUT_OF_RANGE, () -> BufferView.create(buffer,
                    new long[] {1L << 32, 1L << 32}, ElementType.INT_32, EncodingType.DENSE_ROW_MAJOR));
        }
        assertEquals(0, device.allocator().statistics().bytesLive(), "failed creations retain nothing");
    }

    @Test
    void malformedTextIsRefusedWithoutLeakingAnAllocation() {
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> parse(""));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> parse("2xq32=1 2"));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> parse("2x?xf32=1"));
        var count = assertStatus(StatusCode.OUT_OF_RANGE, () -> parse("2x2xf32=1 2 3"));
        assertTrue(count.getMessage().contains("3 of 4"), count.getMessage());
        var element = assertStatus(StatusCode.INVALID_ARGUMENT, () -> parse("2xsi8=1 300"));
        assertTrue(element.getMessage().contains("300"), element.getMessage());
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> BufferViewText.parse("f32=1", (Device) null));
        assertEquals(0, device.allocator().statistics().bytesLive());
    }
}
