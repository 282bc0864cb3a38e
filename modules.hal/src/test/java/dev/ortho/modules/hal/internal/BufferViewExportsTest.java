package dev.ortho.modules.hal.internal;

import static dev.ortho.modules.hal.internal.Harness.p;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferView;
import dev.ortho.hal.ElementType;
import dev.ortho.hal.EncodingType;
import dev.ortho.hal.spi.ForwardingBuffer;
import dev.ortho.hal.spi.ForwardingDevice;
import dev.ortho.hal.text.BufferViewText;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.VmBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class BufferViewExportsTest {
    static final long F32 = ElementType.FLOAT_32;
    static final long DENSE = EncodingType.DENSE_ROW_MAJOR;

    final List<String> traced = new ArrayList<>();
    Harness h;
    RefObject allocator;
    RefObject buffer;
    VmBuffer message;

    @BeforeEach
    void setUp() {
        h = new Harness((key, views) -> traced.add(key + ":" + views));
        try (Harness.Results device = h.call("devices.get", p(0))) {
            allocator = h.call("device.allocator", p(), device.ref(0)).takeRef(0);
        }
        buffer = h.call("allocator.allocate", p(-1, AllocatorAndBufferExportsTest.HOST,
                AllocatorAndBufferExportsTest.USAGE, 64), allocator).takeRef(0);
        message = Harness.string("input 0");
    }

    @AfterEach
    void tearDown() {
        message.release();
        buffer.release();
        allocator.release();
        h.close();
    }

    RefObject view(long offset, long length, long elementType, long... dims) {
        long[] prims = new long[5 + dims.length];
        prims[0] = offset;
        prims[1] = length;
        prims[2] = elementType;
        prims[3] = DENSE;
        prims[4] = dims.length;
        System.arraycopy(dims, 0, prims, 5, dims.length);
        return h.call("buffer_view.create", prims, buffer).takeRef(0);
    }

    @Test
    void createOverTheWholeBufferKeepsTheBufferAndReportsShapeAndTypes() {
        RefObject view = view(0, 64, F32, 4, 4);
        try (Harness.Results rank = h.call("buffer_view.rank", p(), view);
                Harness.Results dim0 = h.call("buffer_view.dim", p(0), view);
                Harness.Results dim1 = h.call("buffer_view.dim", p(1), view);
                Harness.Results type = h.call("buffer_view.element_type", p(), view);
                Harness.Results encoding = h.call("buffer_view.encoding_type", p(), view);
                Harness.Results viewed = h.call("buffer_view.buffer", p(), view)) {
            assertEquals(2, rank.i32(0));
            assertEquals(4, dim0.i64(0));
            assertEquals(4, dim1.i64(0));
            assertEquals(ElementType.FLOAT_32, type.i32(0));
            assertEquals(EncodingType.DENSE_ROW_MAJOR, encoding.i32(0));
            assertSame(HalRefs.buffer(buffer), HalRefs.buffer(viewed.ref(0)));
            assertEquals("4x4xf32", HalRefs.bufferView(view).toString());
        } finally {
            view.release();
        }
    }

    @Test
    void bufferOfAViewIsTheRefItWasMadeFromAndTheSameOnEveryCall() {
        // IREE's buffer_view.buffer returns the view's buffer object itself: the one the view was
        // created over, the same on every call (vm.cmp.eq.ref holds); a subspan view's buffer is
        // the subspan, again the same on every call.
        int before = ((HalRef) buffer).refCount();
        RefObject whole = view(0, 64, F32, 16);
        RefObject part = view(16, 8, F32, 2);
        RefObject wrapped = HalRefs.wrap(HalRefs.bufferView(whole)); // a view ref made by the host
        try (Harness.Results a = h.call("buffer_view.buffer", p(), whole);
                Harness.Results b = h.call("buffer_view.buffer", p(), whole);
                Harness.Results c = h.call("buffer_view.buffer", p(), part);
                Harness.Results d = h.call("buffer_view.buffer", p(), part);
                Harness.Results e = h.call("buffer_view.buffer", p(), wrapped);
                Harness.Results f = h.call("buffer_view.buffer", p(), wrapped)) {
            assertSame(buffer, a.ref(0));
            assertSame(buffer, b.ref(0));
            assertSame(c.ref(0), d.ref(0));
            assertNotSame(buffer, c.ref(0));
            assertEquals(8, HalRefs.buffer(c.ref(0)).byteLength());
            assertSame(e.ref(0), f.ref(0));
            assertSame(HalRefs.buffer(buffer), HalRefs.buffer(e.ref(0)));
        } finally {
            wrapped.release();
            part.release();
            whole.release();
        }
        assertEquals(before, ((HalRef) buffer).refCount()); // the views gave back their counts
    }

    @Test
    void createWithARangeViewsASubspan() {
        h.run("buffer.store", p(0x3F800000, 16, 4), buffer);
        RefObject view = view(16, 8, F32, 2);
        try (Harness.Results viewed = h.call("buffer_view.buffer", p(), view)) {
            assertEquals(8, h.call("buffer.length", p(), viewed.ref(0)).i64(0));
            assertEquals(0x3F800000, h.call("buffer.load", p(0, 4), viewed.ref(0)).i32(0));
            assertEquals("2xf32=1 0", BufferViewText.format(HalRefs.bufferView(view)));
        } finally {
            view.release();
        }
    }

    /**
     * Issue 16 (branch {@code alloc}): a view of part of a buffer makes its subspan (IREE makes one
     * in {@code buffer_view.create}) only when its buffer is first asked for, and then the same one
     * on every later call; a program's results that are only returned and released (every output of
     * an IREE-compiled function) cost no subspan. Before, every create called {@code subspan}.
     */
    @Test
    void createOfAPartMakesItsSubspanOnlyWhenItsBufferIsFirstAskedFor() {
        AtomicInteger subspans = new AtomicInteger();
        Buffer real = HalRefs.buffer(buffer);
        real.retain(); // the wrapper takes over one count
        ForwardingDevice owner = new ForwardingDevice(h.device) { };
        Buffer counting = new ForwardingBuffer(owner, real, null) {
            @Override
            public Buffer subspan(long offset, long length) {
                subspans.incrementAndGet();
                return real.subspan(offset, length);
            }
        };
        RefObject source = HalRefs.wrap(counting);
        counting.release(); // the ref holds it now
        RefObject view = h.call("buffer_view.create", p(16, 8, F32, DENSE, 1, 2), source).takeRef(0);
        try {
            assertEquals(0, subspans.get(), "buffer_view.create made a subspan nobody asked for");
            assertEquals("2xf32", HalRefs.bufferView(view).toString());
            try (Harness.Results first = h.call("buffer_view.buffer", p(), view);
                    Harness.Results second = h.call("buffer_view.buffer", p(), view)) {
                assertEquals(1, subspans.get());
                assertSame(first.ref(0), second.ref(0));
                assertEquals(16, HalRefs.buffer(first.ref(0)).byteOffset());
                assertEquals(8, HalRefs.buffer(first.ref(0)).byteLength());
            }
        } finally {
            view.release();
            source.release();
        }
        assertEquals(1, subspans.get());
    }

    @Test
    void createRejectsBadRangesShapesAndLayouts() {
        StatusException range = h.fails(StatusCode.OUT_OF_RANGE, "buffer_view.create", p(60, 8, F32, DENSE, 0),
                buffer);
        assertTrue(range.getMessage().contains("source_offset=60, length=8"), range.getMessage());
        h.fails(StatusCode.OUT_OF_RANGE, "buffer_view.create", p(0, 64, F32, DENSE, 1, 17), buffer);
        h.fails(StatusCode.OUT_OF_RANGE, "buffer_view.create", p(0, 64, F32, DENSE, 1, -1), buffer);
        h.fails(StatusCode.INVALID_ARGUMENT, "buffer_view.create", p(0, 64, F32, 7, 1, 4), buffer);
        h.fails(StatusCode.INVALID_ARGUMENT, "buffer_view.create", p(0, 64, F32, DENSE, 2, 4), buffer);
        h.fails(StatusCode.INVALID_ARGUMENT, "buffer_view.create", p(0, 64, F32, DENSE, -1), buffer);
        long[] tooMany = new long[5 + 129];
        tooMany[1] = 64;
        tooMany[2] = ElementType.OPAQUE_8;
        tooMany[4] = 129;
        h.fails(StatusCode.OUT_OF_RANGE, "buffer_view.create", tooMany, buffer);
        h.fails(StatusCode.INVALID_ARGUMENT, "buffer_view.create", p(0, 64, F32, DENSE, 0), allocator);
    }

    @Test
    void dimOutsideTheRankIsOutOfRange() {
        RefObject view = view(0, 64, F32, 16);
        try {
            h.fails(StatusCode.OUT_OF_RANGE, "buffer_view.dim", p(1), view);
            h.fails(StatusCode.OUT_OF_RANGE, "buffer_view.dim", p(-1), view);
            h.fails(StatusCode.INVALID_ARGUMENT, "buffer_view.rank", p(), buffer);
            h.fails(StatusCode.INVALID_ARGUMENT, "buffer_view.element_type", p(), (RefObject) null);
            h.fails(StatusCode.INVALID_ARGUMENT, "buffer_view.encoding_type", p(), buffer);
            h.fails(StatusCode.INVALID_ARGUMENT, "buffer_view.buffer", p(), buffer);
        } finally {
            view.release();
        }
    }

    @Test
    void assertAcceptsMatchingAndCompatibleViews() {
        RefObject f32 = view(0, 64, F32, 2, 8);
        RefObject i32 = view(0, 64, ElementType.SINT_32, 16);
        RefObject opaque = view(0, 64, ElementType.OPAQUE_32, 16);
        try {
            h.run("buffer_view.assert", p(F32, DENSE, 2, 2, 8), f32, message);
            h.run("buffer_view.assert", p(ElementType.UINT_32, DENSE, 1, 16), i32, message);
            h.run("buffer_view.assert", p(ElementType.FLOAT_32, DENSE, 1, 16), opaque, message);
        } finally {
            f32.release();
            i32.release();
            opaque.release();
        }
    }

    @Test
    void assertReportsEncodingElementTypeRankAndDimensionMismatches() {
        RefObject view = view(0, 64, F32, 2, 8);
        try {
            StatusException encoding = h.fails(StatusCode.INVALID_ARGUMENT, "buffer_view.assert",
                    p(F32, EncodingType.OPAQUE, 2, 2, 8), view, message);
            assertTrue(encoding.getMessage().contains("input 0 encoding mismatch"), encoding.getMessage());
            StatusException type = h.fails(StatusCode.INVALID_ARGUMENT, "buffer_view.assert",
                    p(ElementType.SINT_32, DENSE, 2, 2, 8), view, message);
            assertTrue(type.getMessage().contains("element type mismatch; expected si32 (11000020) but have f32"),
                    type.getMessage());
            StatusException rank = h.fails(StatusCode.INVALID_ARGUMENT, "buffer_view.assert",
                    p(F32, DENSE, 0), view, message);
            assertTrue(rank.getMessage().contains("shape rank mismatch; expected 0 (scalar) but have 2"),
                    rank.getMessage());
            StatusException dim = h.fails(StatusCode.INVALID_ARGUMENT, "buffer_view.assert",
                    p(F32, DENSE, 2, 2, 9), view, message);
            assertTrue(dim.getMessage().contains("shape dimension 1 mismatch; expected 9 but have 8"),
                    dim.getMessage());
            assertTrue(dim.getMessage().contains("expected shape `2x9`, actual shape `2x8`"), dim.getMessage());
            h.fails(StatusCode.INVALID_ARGUMENT, "buffer_view.assert", p(F32, DENSE, 2, 2, 8), buffer, message);
            h.fails(StatusCode.INVALID_ARGUMENT, "buffer_view.assert", p(F32, DENSE, 2, 2, 8), view, null);
            h.fails(StatusCode.INVALID_ARGUMENT, "buffer_view.assert", p(F32, DENSE, 3, 2, 8), view, message);
        } finally {
            view.release();
        }
    }

    @Test
    void traceHandsKeyAndViewsToTheSink() {
        RefObject a = view(0, 64, F32, 16);
        RefObject b = view(0, 16, ElementType.SINT_32, 2, 2);
        VmBuffer key = Harness.string("dispatch_0");
        try {
            h.run("buffer_view.trace", p(2), key, a, b);
            assertEquals(List.of("dispatch_0:[16xf32, 2x2xsi32]"), traced);
            h.fails(StatusCode.INVALID_ARGUMENT, "buffer_view.trace", p(1), key, buffer);
            h.fails(StatusCode.INVALID_ARGUMENT, "buffer_view.trace", p(1), key);
            RefObject[] refs = new RefObject[130];
            refs[0] = key;
            for (int i = 1; i < refs.length; i++) {
                refs[i] = a;
            }
            h.fails(StatusCode.RESOURCE_EXHAUSTED, "buffer_view.trace", p(129), refs);
        } finally {
            key.release();
            a.release();
            b.release();
        }
    }

    @Test
    void traceWithoutASinkDoesNothing() {
        try (Harness plain = new Harness()) {
            plain.run("buffer_view.trace", p(0), (RefObject) null);
        }
    }

    @Test
    void viewKeepsItsBufferAlive() {
        RefObject view = view(0, 64, F32, 16);
        BufferView halView = HalRefs.bufferView(view);
        buffer.retain(); // tearDown releases once more
        buffer.release();
        assertEquals(64, halView.buffer().byteLength());
        view.release();
    }
}
