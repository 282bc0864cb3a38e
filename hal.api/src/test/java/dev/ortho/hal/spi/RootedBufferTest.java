package dev.ortho.hal.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.MappedMemory;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class RootedBufferTest {
    /** A buffer with no memory: only the span and the release order are under test. */
    private static final class Span extends RootedBuffer<Span> {
        int rootReleases;

        Span(long size) {
            super(size);
        }

        private Span(Span root, long offset, long length) {
            super(root, offset, length);
        }

        @Override
        public Buffer subspan(long offset, long length) {
            root().retain();
            return new Span(root(), byteOffset() + offset, length);
        }

        @Override
        protected void rootReleased() {
            rootReleases++;
        }

        @Override
        public int memoryType() {
            return 0;
        }

        @Override
        public int allowedAccess() {
            return 0;
        }

        @Override
        public int allowedUsage() {
            return 0;
        }

        @Override
        public MappedMemory map(int mode, int access, long offset, long length) {
            throw new StatusException(StatusCode.UNIMPLEMENTED, "no memory");
        }

        @Override
        public void read(long offset, MemorySegment target) {
            throw new StatusException(StatusCode.UNIMPLEMENTED, "no memory");
        }

        @Override
        public void write(long offset, MemorySegment source) {
            throw new StatusException(StatusCode.UNIMPLEMENTED, "no memory");
        }

        @Override
        public void fill(long offset, long length, int pattern, int patternLength) {
            throw new StatusException(StatusCode.UNIMPLEMENTED, "no memory");
        }
    }

    @Test
    void aSubspanHoldsItsRootUntilItsLastRelease() {
        Span root = new Span(100);
        assertSame(root, root.allocatedBuffer());
        assertEquals(100, root.byteLength());
        Buffer inner = root.subspan(10, 50).subspan(5, 20);
        assertSame(root, inner.allocatedBuffer(), "a subspan of a subspan names the root");
        assertEquals(15, inner.byteOffset());
        assertEquals(20, inner.byteLength());
        assertEquals(100, inner.allocationSize());
        root.release();
        assertEquals(0, root.rootReleases, "the subspans still hold the root");
        inner.release();
        assertEquals(0, root.rootReleases, "the first subspan still holds it");
    }

    @Test
    void theRootsLastReleaseFreesOnceAndAnOverReleaseFails() {
        Span root = new Span(8);
        Buffer span = root.subspan(0, 8);
        span.retain();
        span.release();
        span.release();
        assertEquals(0, root.rootReleases);
        root.release();
        assertEquals(1, root.rootReleases);
        StatusException e = assertThrows(StatusException.class, root::release);
        assertEquals(StatusCode.FAILED_PRECONDITION, e.code());
        assertTrue(e.getMessage().contains("released more times than retained"), e.getMessage());
        assertEquals(1, root.rootReleases);
    }
}
